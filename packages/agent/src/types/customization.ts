/** A skill: a folder holding SKILL.md (frontmatter `name`, `description`) and any bundled files. */
export interface Skill {
  readonly name: string;
  /** When to use it: the only part the system prompt carries. */
  readonly description: string;
  /** The folder holding SKILL.md. */
  readonly directory: string;
}

/**
 * A custom subagent type (Claude Code's format: a markdown file whose frontmatter has `name`,
 * `description`, optional `tools` and `model`, and whose body is the agent's system prompt).
 */
export interface SubagentType {
  readonly name: string;
  /** When to use it; shown to the model in spawn_agent's description. */
  readonly description: string;
  /** The child's instructions (the file's body). */
  readonly prompt: string;
  /** Tools the child may use, ours or Claude Code's names; all the parent's tools when absent. */
  readonly tools?: readonly string[];
  /** A model id, or "inherit"/absent for the parent's model. */
  readonly model?: string;
  /** Where it was defined. */
  readonly file?: string;
}

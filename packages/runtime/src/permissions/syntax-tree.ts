/** The part of a syntax node that judging a command line reads (web-tree-sitter's Node has it). */
export interface SyntaxNode {
  readonly id: number;
  readonly type: string;
  readonly text: string;
  readonly startIndex: number;
  readonly endIndex: number;
  readonly isNamed: boolean;
  readonly isError: boolean;
  readonly isMissing: boolean;
  readonly hasError: boolean;
  readonly parent: SyntaxNode | null;
  readonly children: readonly (SyntaxNode | null)[];
  readonly namedChildren: readonly (SyntaxNode | null)[];
  readonly firstNamedChild: SyntaxNode | null;
  readonly lastNamedChild: SyntaxNode | null;
  child(index: number): SyntaxNode | null;
  childForFieldName(name: string): SyntaxNode | null;
  childrenForFieldName(name: string): readonly (SyntaxNode | null)[];
  descendantsOfType(type: string): readonly (SyntaxNode | null)[];
}

/** A parsed line; delete() frees what the parser allocated for it. */
export interface SyntaxTree {
  readonly rootNode: SyntaxNode;
  delete(): void;
}

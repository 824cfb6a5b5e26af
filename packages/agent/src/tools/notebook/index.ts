export { notebookEditTool } from "./edit-tool.js";
export { NotebookFormatError } from "./notebook-format.js";
export { isNotebookPath, readNotebook } from "./read-notebook.js";

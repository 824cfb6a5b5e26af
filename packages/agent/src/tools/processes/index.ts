export { BackgroundProcesses } from "./background-processes.js";
export { backgroundProcessTools, shellInputTool, shellKillTool, shellOutputTool } from "./tools.js";

// Compiled into the bundled provider SDKs in place of the global Headers and FormData (see
// bundle.mjs): both globals are Node's fetch implementation, which the first touch compiles whole.

export { RequestHeaders as Headers } from "../../llm/dist/providers/shared/request-headers.js";
export { SdkFormData as FormData } from "../../llm/dist/providers/shared/sdk-form-data.js";

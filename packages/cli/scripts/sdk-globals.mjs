// Compiled into the bundled provider SDKs in place of the global Headers, FormData and
// ReadableStream (see bundle.mjs): the first touch of the first two compiles Node's whole fetch
// implementation, of the third Node's web streams.
export {
  SdkFormData as FormData,
  SdkReadableStream as __sdkReadableStream,
  SdkReadableStream as ReadableStream,
} from "../../llm/dist/providers/shared/platform-class-stand-ins.js";
export { RequestHeaders as Headers } from "../../llm/dist/providers/shared/request-headers.js";

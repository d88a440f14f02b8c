// Reading the multipart form of the with-files operations: field `payload` holds the JSON the plain
// operation takes (validated with the same zod contract), field `files` (repeatable) the attachments.
// The form has its own body limit (services/runs/run-files.ts); the app's 256 KB JSON limit skips it.
import { bodyLimit } from "hono/body-limit";
import type { z } from "zod";
import type { PlatformContext } from "../../context";
import { PlatformError } from "../../errors";
import { MAX_MULTIPART_BYTES, MAX_FILES_TOTAL_BYTES, type UploadedFile } from "../../services/runs/run-files";

export const uploadBodyLimit = bodyLimit({
  maxSize: MAX_MULTIPART_BYTES,
  onError: () => {
    throw new PlatformError({
      type: "payload_too_large",
      message: `the form exceeds the upload limit (files up to ${MAX_FILES_TOTAL_BYTES} bytes in all)`,
      details: { field: "files", limit_bytes: MAX_FILES_TOTAL_BYTES },
    });
  },
});

/** The OpenAPI description of the form (not validated by the router: readUpload does it). */
export const uploadBody = (payloadDescription: string) => ({
  required: true,
  content: {
    "multipart/form-data": {
      schema: {
        type: "object" as const,
        required: ["payload"],
        properties: {
          payload: { type: "string" as const, description: payloadDescription },
          files: { type: "array" as const, items: { type: "string" as const, format: "binary" }, description: "Attachments (repeat the field)" },
        },
      },
    },
  },
});

export const isMultipart = (contentType: string | undefined) => /^multipart\/form-data\s*;/i.test(contentType ?? "");

const fieldError = (field: string, message: string) =>
  new PlatformError({ type: "validation_error", message: `${field}: ${message}`, details: { fields: [{ field, message }] } });

export async function readUpload<T extends z.ZodType>(
  c: PlatformContext,
  schema: T,
): Promise<{ payload: z.infer<T>; files: UploadedFile[] }> {
  if (!isMultipart(c.req.header("content-type"))) {
    throw new PlatformError({
      type: "invalid_request_error",
      status: 415,
      message: "the body must be multipart/form-data with a payload field and files fields",
    });
  }
  let form: FormData;
  try {
    form = await c.req.formData();
  } catch (error) {
    if (error instanceof PlatformError) throw error;
    throw new PlatformError({ type: "invalid_request_error", message: "the multipart body could not be read" });
  }
  const raw = form.get("payload");
  if (raw === null) throw fieldError("payload", "is required");
  const text = typeof raw === "string" ? raw : await raw.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw fieldError("payload", "is not valid JSON");
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    // Named as the payload's fields (payload.message, …), in the envelope app.ts's validationError writes.
    // (A ZodError is not an Error in zod 4, so Hono would not hand it to onError.)
    const fields = parsed.error.issues.map((issue) => ({ field: ["payload", ...issue.path].join("."), message: issue.message }));
    throw new PlatformError({
      type: "validation_error",
      message: fields.map(({ field, message }) => `${field}: ${message}`).join("; "),
      details: { fields },
    });
  }
  const files: UploadedFile[] = [];
  for (const entry of form.getAll("files")) {
    if (typeof entry === "string") throw fieldError("files", "must be files, not text fields");
    files.push({ name: entry.name, mimeType: entry.type, bytes: new Uint8Array(await entry.arrayBuffer()) });
  }
  return { payload: parsed.data as z.infer<T>, files };
}

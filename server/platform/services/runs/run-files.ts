// Attachments of POST /runs/with-files and /runs/{run_id}/reply/with-files: limits, which kinds a model
// can read, and how they reach it. A stored user message refers to its files as `inlay-file:<n>` (the
// run's n-th file, counting from 0); the executor swaps the bytes in before each model call, so the
// conversation column never holds a file twice. Text files reach the model as text parts, images and
// PDFs as file parts (docs/platform-api.md, "Attachments").
import type { FilePart, ModelMessage, TextPart, UserContent } from "ai";
import type { Db } from "../../repositories/db";
import { PlatformError } from "../../errors";
import { listRunFileContents } from "../../repositories/run-files";
import type { NewRunFile } from "../../repositories/run-files";

export const MAX_RUN_FILES = 10;
export const MAX_FILE_BYTES = 5 * 1024 * 1024;
export const MAX_FILES_TOTAL_BYTES = 20 * 1024 * 1024;
/** The multipart body limit: the files plus room for `payload` (256 KB, like any JSON body) and framing. */
export const MAX_MULTIPART_BYTES = MAX_FILES_TOTAL_BYTES + 512 * 1024;

export const FILE_REF_PREFIX = "inlay-file:";
/** providerOptions key marking a text part that is an attachment (the sim model reads it). */
export const ATTACHMENT_OPTION = "inlay";

export interface UploadedFile {
  name: string;
  mimeType: string;
  bytes: Uint8Array<ArrayBuffer>;
}

const TEXT_TYPES = new Set([
  "application/json",
  "application/xml",
  "application/yaml",
  "application/x-yaml",
  "application/csv",
  "application/javascript",
  "application/x-ndjson",
  "application/sql",
]);
const MODEL_FILE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp", "application/pdf"]);

const baseType = (mimeType: string) => mimeType.split(";")[0]!.trim().toLowerCase();
const isTextType = (mimeType: string) => mimeType.startsWith("text/") || TEXT_TYPES.has(mimeType);

function utf8(bytes: Uint8Array): string | undefined {
  try {
    const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return text.includes("\u0000") ? undefined : text;
  } catch {
    return undefined;
  }
}

const tooLarge = (message: string, details: Record<string, unknown>) =>
  new PlatformError({ type: "payload_too_large", message, details: { field: "files", ...details } });
const invalidFiles = (message: string) =>
  new PlatformError({ type: "validation_error", message: `files: ${message}`, details: { fields: [{ field: "files", message }] } });

/**
 * Checks the upload against the limits and the kinds a model can read; returns the files to store,
 * with their media type settled (an untyped file that is UTF-8 text is text/plain).
 */
export function acceptFiles(files: UploadedFile[]): NewRunFile[] {
  if (files.length > MAX_RUN_FILES) throw invalidFiles(`at most ${MAX_RUN_FILES} files per request`);
  let total = 0;
  return files.map((file) => {
    const name = file.name.trim().slice(0, 255) || "attachment";
    if (file.bytes.byteLength > MAX_FILE_BYTES) {
      throw tooLarge(`file "${name}" exceeds the ${MAX_FILE_BYTES} byte limit per file`, { file: name, limit_bytes: MAX_FILE_BYTES });
    }
    total += file.bytes.byteLength;
    if (total > MAX_FILES_TOTAL_BYTES) {
      throw tooLarge(`the files exceed the ${MAX_FILES_TOTAL_BYTES} byte limit per request`, { limit_bytes: MAX_FILES_TOTAL_BYTES });
    }
    let mimeType = baseType(file.mimeType || "application/octet-stream");
    if (mimeType === "application/octet-stream" && utf8(file.bytes) !== undefined) mimeType = "text/plain";
    if (isTextType(mimeType)) {
      if (utf8(file.bytes) === undefined) throw invalidFiles(`"${name}" is typed ${mimeType} but is not UTF-8 text`);
    } else if (!MODEL_FILE_TYPES.has(mimeType)) {
      throw invalidFiles(`"${name}" has type ${mimeType}; send text files, images (PNG, JPEG, GIF, WebP) or PDF`);
    }
    return { name, mimeType, content: file.bytes };
  });
}

/** The model's view of one file: text as a marked text part, anything else as a file part. */
function attachmentPart(file: NewRunFile): TextPart | FilePart {
  if (isTextType(file.mimeType)) {
    return {
      type: "text",
      text: `--- attachment: ${file.name} (${file.mimeType}) ---\n${utf8(file.content) ?? ""}`,
      providerOptions: { [ATTACHMENT_OPTION]: { attachment: { filename: file.name, mediaType: file.mimeType } } },
    };
  }
  return { type: "file", data: file.content, mediaType: file.mimeType, filename: file.name };
}

/**
 * The user message as stored: the text, then one reference per file (`firstOrdinal` is how many files
 * the run had before these). A plain string when there are no files, as before.
 */
export function storedUserMessage(message: string, files: NewRunFile[], firstOrdinal: number): ModelMessage {
  if (files.length === 0) return { role: "user", content: message };
  const content: UserContent = [{ type: "text", text: message }];
  files.forEach((file, index) =>
    content.push({ type: "file", data: `${FILE_REF_PREFIX}${firstOrdinal + index}`, mediaType: file.mimeType, filename: file.name }),
  );
  return { role: "user", content };
}

/** The user message with its files inline: for metadata_only runs, whose files are never stored. */
export function inlineUserMessage(message: string, files: NewRunFile[]): ModelMessage {
  if (files.length === 0) return { role: "user", content: message };
  return { role: "user", content: [{ type: "text", text: message }, ...files.map(attachmentPart)] };
}

const refOf = (part: unknown): number | undefined => {
  if (typeof part !== "object" || part === null) return undefined;
  const { type, data } = part as { type?: unknown; data?: unknown };
  if (type !== "file" || typeof data !== "string" || !data.startsWith(FILE_REF_PREFIX)) return undefined;
  return Number(data.slice(FILE_REF_PREFIX.length));
};

/** The conversation with every file reference replaced by the file, for a model call. */
export async function withAttachments(prisma: Db, runId: number, messages: ModelMessage[]): Promise<ModelMessage[]> {
  const referenced = messages.some((message) => Array.isArray(message.content) && message.content.some((part) => refOf(part) !== undefined));
  if (!referenced) return messages;
  const files = await listRunFileContents(prisma, runId);
  return messages.map((message) => {
    if (message.role !== "user" || typeof message.content === "string") return message;
    return {
      ...message,
      content: message.content.map((part) => {
        const ordinal = refOf(part);
        const file = ordinal === undefined ? undefined : files[ordinal];
        if (ordinal === undefined) return part;
        if (!file) throw new Error(`attachment ${ordinal} of run ${runId} is missing`);
        return attachmentPart({ name: file.name, mimeType: file.mimeType, content: file.content });
      }),
    };
  });
}

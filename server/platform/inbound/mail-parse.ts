// A parsed mail as the inbound service reads it: shared by the SMTP server and fetchmail, so mail that
// arrives either way reaches the agent as the same text.
import type { ParsedMail } from "mailparser";
import type { InboundMail } from "../entry-points/email-inbound";
import { htmlToText } from "./html-text";

/** mailparser's message as the inbound service reads it. */
export function toInboundMail(parsed: ParsedMail): InboundMail {
  const header = (name: string) => {
    const value = parsed.headers.get(name);
    return typeof value === "string" ? value.trim().toLowerCase() : "";
  };
  const autoSubmitted = header("auto-submitted");
  const precedence = header("precedence");
  const references = parsed.references === undefined ? [] : Array.isArray(parsed.references) ? parsed.references : [parsed.references];
  return {
    subject: parsed.subject ?? "",
    // mailparser gives the HTML's text only when the HTML is the whole message; beside an attachment,
    // in multipart/related or a nested alternative there is HTML and no text.
    text: parsed.text?.trim() ? parsed.text : typeof parsed.html === "string" ? htmlToText(parsed.html) : "",
    messageId: parsed.messageId ?? null,
    inReplyTo: parsed.inReplyTo ?? null,
    references,
    automatic: (autoSubmitted !== "" && autoSubmitted !== "no") || ["bulk", "junk", "list", "auto_reply"].includes(precedence),
    attachments: parsed.attachments.map((attachment, index) => ({
      name: attachment.filename ?? `attachment-${index + 1}`,
      mimeType: attachment.contentType || "application/octet-stream",
      content: new Uint8Array(attachment.content) as Uint8Array<ArrayBuffer>,
    })),
  };
}

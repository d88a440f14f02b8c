// Inbound mail whose body is HTML only: the run's message carries the HTML's text whatever else the
// message holds (an attachment, multipart/related, a nested multipart/alternative), never "(no text)".
import { simpleParser } from "mailparser";
import MailComposer from "nodemailer/lib/mail-composer";
import { describe, expect, it } from "vitest";
import { htmlToText } from "@/server/platform/inbound/html-text";
import { toInboundMail } from "@/server/platform/inbound/smtp-server";
import { emailMessageText } from "@/server/platform/entry-points/email-inbound";

const HTML = `<!DOCTYPE html><html><head><title>Ignored title</title><style>p { color: red }</style></head>
<body><script>alert("no")</script><p>Hello&nbsp;Bob,</p><p>The total is &euro;12 &amp; due <b>Friday</b>.</p>
<ul><li>first item</li><li>second&#x20AC;item</li></ul><p>See <a href="https://example.org/report">the report</a>.</p></body></html>`;

const compose = (mail: ConstructorParameters<typeof MailComposer>[0]) =>
  new Promise<Buffer>((resolve, reject) => new MailComposer(mail).compile().build((error, raw) => (error ? reject(error) : resolve(raw))));

const inbound = async (raw: Buffer | string) => toInboundMail(await simpleParser(raw));

function expectReadable(text: string) {
  expect(text).toContain("Hello Bob,");
  expect(text).toContain("The total is €12 & due Friday.");
  expect(text).toContain("- first item\n- second€item");
  expect(text).toContain("See the report (https://example.org/report).");
  expect(text).not.toMatch(/alert|color: red|Ignored title|<|&nbsp;|&amp;/);
}

describe("inbound mail with an HTML body and no text/plain part", () => {
  it("takes the text from the HTML beside an attachment (multipart/mixed)", async () => {
    const raw = await compose({
      from: "alice@example.org",
      to: "desk@agents.localhost",
      subject: "Invoice",
      html: HTML,
      attachments: [{ filename: "invoice.pdf", content: Buffer.from("%PDF-1.4"), contentType: "application/pdf" }],
    });
    const mail = await inbound(raw);
    expectReadable(mail.text);
    expect(mail.attachments.map((attachment) => attachment.name)).toEqual(["invoice.pdf"]);
    const message = emailMessageText("alice@example.org", mail, [], []);
    expect(message).not.toContain("(no text)");
    expect(message).toContain("Hello Bob,");
  });

  it("takes the text from HTML with inline images (multipart/related)", async () => {
    const raw = await compose({
      from: "alice@example.org",
      to: "desk@agents.localhost",
      subject: "Logo",
      html: `${HTML}<p><img src="cid:logo@x" alt="Company logo"></p>`,
      attachments: [{ filename: "logo.png", content: Buffer.from([0x89, 0x50, 0x4e, 0x47]), contentType: "image/png", cid: "logo@x" }],
    });
    expect(raw.toString()).toContain("multipart/related");
    const mail = await inbound(raw);
    expectReadable(mail.text);
    expect(mail.text).toContain("[Company logo]");
    expect(mail.text).not.toContain("data:image");
  });

  it("takes the text from HTML in a nested multipart/alternative", async () => {
    const html = Buffer.from(HTML).toString("base64");
    const raw = [
      "From: alice@example.org",
      "To: desk@agents.localhost",
      "Subject: Nested",
      "MIME-Version: 1.0",
      'Content-Type: multipart/mixed; boundary="outer"',
      "",
      "--outer",
      'Content-Type: multipart/alternative; boundary="alt"',
      "",
      "--alt",
      'Content-Type: multipart/related; boundary="rel"',
      "",
      "--rel",
      "Content-Type: text/html; charset=utf-8",
      "Content-Transfer-Encoding: base64",
      "",
      html,
      "--rel--",
      "--alt--",
      "--outer",
      'Content-Type: application/pdf; name="a.pdf"',
      'Content-Disposition: attachment; filename="a.pdf"',
      "Content-Transfer-Encoding: base64",
      "",
      Buffer.from("%PDF-1.4").toString("base64"),
      "--outer--",
      "",
    ].join("\r\n");
    const mail = await inbound(raw);
    expectReadable(mail.text);
    expect(mail.attachments.map((attachment) => attachment.name)).toEqual(["a.pdf"]);
  });

  it("keeps the text/plain part when there is one", async () => {
    const mail = await inbound(await compose({ from: "a@example.org", to: "b@example.org", text: "Plain words.", html: "<p>HTML words.</p>" }));
    expect(mail.text.trim()).toBe("Plain words.");
  });

  it("keeps mailparser's own text of a message that is only HTML", async () => {
    const mail = await inbound(await compose({ from: "a@example.org", to: "b@example.org", html: "<p>Only HTML here.</p>" }));
    expect(mail.text.trim()).toBe("Only HTML here.");
  });
});

describe("htmlToText", () => {
  it("ends lines at block elements, keeps <pre> as written and tables cell by cell", () => {
    const text = htmlToText("<div>one</div><div>two<br>three</div><pre>  a\n    b</pre><table><tr><td>x</td><td>y</td></tr><tr><th>z</th></tr></table>");
    expect(text).toBe("one\ntwo\nthree\n\n  a\n    b\n\nx y\nz");
  });

  it("drops comments, unterminated scripts and attributes holding '>', and keeps a lone '<'", () => {
    expect(htmlToText('a <!-- hidden --> b <span title="x > y">c</span> 1 < 2')).toBe("a b c 1 < 2");
    expect(htmlToText("before<script>never closed")).toBe("before");
  });

  it("decodes numeric and named entities and leaves unknown ones", () => {
    expect(htmlToText("caf&eacute; &#233; &#x1F600; &ldquo;q&rdquo; &unknown; &#0;")).toBe("café é 😀 “q” &unknown; \uFFFD");
  });

  it("is linear on hostile input", () => {
    const started = performance.now();
    htmlToText("<script".repeat(20_000) + "<a href='".repeat(20_000) + "&#".repeat(50_000));
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});

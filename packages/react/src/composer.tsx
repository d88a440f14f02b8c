"use client";
// The message box: Enter sends, Shift+Enter adds a line, Escape stops a run; attachments by button,
// paste or drop; the send button turns into Stop while the agent works. A leading `/` offers the
// agent's commands and skills (command-picker.tsx).
import { useId, useRef, useState, type KeyboardEvent } from "react";
import type { ChatCommand } from "@inlay/core/chat/contract";
import { MAX_ATTACHMENTS } from "@inlay/core/chat/limits";
import { CommandList, matchCommands, slashQuery } from "./command-picker";

const MAX_FILE_BYTES = 5 * 1024 * 1024;
const ACCEPT = "text/*,application/json,application/pdf,image/png,image/jpeg,image/gif,image/webp,.md,.csv,.yaml,.yml";

export function Composer({
  busy,
  disabled,
  placeholder,
  commands = [],
  onSend,
  onStop,
}: {
  busy: boolean;
  disabled?: boolean;
  placeholder: string;
  /** Offered by the `/` picker. */
  commands?: readonly ChatCommand[];
  onSend(text: string, files: File[]): void;
  onStop(): void;
}) {
  const [text, setText] = useState("");
  const [files, setFiles] = useState<File[]>([]);
  const [problem, setProblem] = useState("");
  const input = useRef<HTMLTextAreaElement>(null);
  const picker = useRef<HTMLInputElement>(null);
  const listId = useId();
  const [active, setActive] = useState(0);
  // Closed by Escape until the text changes.
  const [dismissed, setDismissed] = useState<string | null>(null);
  const query = slashQuery(text);
  const options = query === null || dismissed === text ? [] : matchCommands(commands, query);
  const open = options.length > 0;
  const current = Math.min(active, options.length - 1);

  const pick = (command: ChatCommand) => {
    setText(`/${command.slug} `);
    setActive(0);
    requestAnimationFrame(() => input.current?.focus());
  };

  const add = (list: FileList | null) => {
    if (!list) return;
    const incoming = [...list];
    const tooBig = incoming.find((file) => file.size > MAX_FILE_BYTES);
    if (tooBig) setProblem(`${tooBig.name} is larger than 5 MB.`);
    else setProblem("");
    setFiles((current) => [...current, ...incoming.filter((file) => file.size <= MAX_FILE_BYTES)].slice(0, MAX_ATTACHMENTS));
  };

  const send = () => {
    if (busy || disabled || (!text.trim() && files.length === 0)) return;
    onSend(text.trim(), files);
    setText("");
    setFiles([]);
    setProblem("");
    if (input.current) input.current.style.height = "auto";
    requestAnimationFrame(() => input.current?.focus());
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (open) {
      if (event.key === "ArrowDown" || event.key === "ArrowUp") {
        event.preventDefault();
        const step = event.key === "ArrowDown" ? 1 : -1;
        setActive((current + step + options.length) % options.length);
        return;
      }
      if ((event.key === "Enter" && !event.shiftKey) || event.key === "Tab") {
        event.preventDefault();
        pick(options[current]!);
        return;
      }
      if (event.key === "Escape") {
        event.preventDefault();
        setDismissed(text);
        return;
      }
    }
    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      send();
    }
  };

  return (
    <form
      className="ic-composer"
      onSubmit={(event) => {
        event.preventDefault();
        send();
      }}
      onDragOver={(event) => event.preventDefault()}
      onDrop={(event) => {
        event.preventDefault();
        add(event.dataTransfer.files);
      }}
    >
      {files.length > 0 && (
        <ul className="ic-files" aria-label="Attachments" style={{ listStyle: "none", margin: 0, padding: 0 }}>
          {files.map((file, index) => (
            <li key={`${file.name}-${index}`} className="ic-file-chip">
              {file.name}
              <button type="button" aria-label={`Remove ${file.name}`} onClick={() => setFiles((current) => current.filter((_, at) => at !== index))}>
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      {problem && (
        <div role="alert" className="ic-hint" style={{ textAlign: "left", color: "var(--ic-danger)" }}>
          {problem}
        </div>
      )}
      {open && <CommandList id={listId} options={options} active={current} onPick={pick} onHover={setActive} />}
      <div className="ic-composer-box">
        <input ref={picker} type="file" multiple accept={ACCEPT} hidden onChange={(event) => { add(event.target.files); event.target.value = ""; }} />
        <button type="button" className="ic-icon-btn" aria-label="Attach files" disabled={busy || disabled || files.length >= MAX_ATTACHMENTS} onClick={() => picker.current?.click()}>
          <svg width="18" height="18" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round" aria-hidden>
            <path d="m21.4 11.05-9.19 9.19a6 6 0 0 1-8.49-8.49l8.57-8.57A4 4 0 1 1 17.95 8.8l-8.58 8.57a2 2 0 1 1-2.83-2.83l8.49-8.48" />
          </svg>
        </button>
        <textarea
          ref={input}
          className="ic-textarea"
          rows={1}
          value={text}
          placeholder={placeholder}
          aria-label="Message"
          // Still a textbox (a multi-line one, which a combobox role would hide); the suggestions are
          // tied to it the way a textbox with autocomplete announces them.
          aria-autocomplete={commands.length > 0 ? "list" : undefined}
          aria-controls={open ? listId : undefined}
          aria-activedescendant={open ? `${listId}-${current}` : undefined}
          disabled={disabled}
          onChange={(event) => {
            setText(event.target.value);
            setActive(0);
            event.target.style.height = "auto";
            event.target.style.height = `${event.target.scrollHeight}px`;
          }}
          onKeyDown={onKeyDown}
          onPaste={(event) => {
            if (event.clipboardData.files.length > 0) add(event.clipboardData.files);
          }}
        />
        {busy ? (
          <button type="button" className="ic-icon-btn" data-variant="stop" aria-label="Stop" onClick={onStop}>
            <svg width="14" height="14" viewBox="0 0 24 24" fill="currentColor" aria-hidden>
              <rect x="5" y="5" width="14" height="14" rx="2" />
            </svg>
          </button>
        ) : (
          <button type="submit" className="ic-icon-btn" data-variant="primary" aria-label="Send" disabled={disabled || (!text.trim() && files.length === 0)}>
            <svg width="18" height="18" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2.2" strokeLinecap="round" strokeLinejoin="round" aria-hidden>
              <path d="M5 12h14M13 6l6 6-6 6" />
            </svg>
          </button>
        )}
      </div>
      <div className="ic-hint">
        Enter to send · Shift+Enter for a new line · Esc to stop{commands.length > 0 ? " · / for skills" : ""}
      </div>
    </form>
  );
}

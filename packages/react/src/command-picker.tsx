"use client";
// The composer's `/` picker: while the message is a lone `/word`, the commands and skills whose slug
// or name match are offered in a listbox above the text box (focus stays in the text box, which points
// at the active option with aria-activedescendant; the arrow keys move it, Enter or Tab takes it, Escape
// closes). Taking one writes `/slug ` into the message; sending it forces that skill on the run.
import { useEffect, useState } from "react";
import type { ChatCommand } from "@inlay/core/chat/contract";
import type { InlayConfig } from "./provider";

/** The `/query` being typed, or null when the message is not a lone slash word. */
export function slashQuery(text: string): string | null {
  const match = /^\/([\w-]*)$/.exec(text);
  return match ? match[1]!.toLowerCase() : null;
}

export function matchCommands(commands: readonly ChatCommand[], query: string): ChatCommand[] {
  if (!query) return [...commands];
  const starts = commands.filter((command) => command.slug.toLowerCase().startsWith(query));
  const contains = commands.filter(
    (command) => !starts.includes(command) && (command.slug.toLowerCase().includes(query) || command.name.toLowerCase().includes(query)),
  );
  return [...starts, ...contains];
}

/** The agent's commands, read once per agent; none when the bridge cannot list them. */
export function useChatCommands(config: InlayConfig, agent: string, enabled: boolean): ChatCommand[] {
  const [loaded, setLoaded] = useState<{ agent: string; commands: ChatCommand[] } | null>(null);
  useEffect(() => {
    if (!enabled || loaded?.agent === agent) return;
    let live = true;
    (config.fetch ?? fetch)(`${config.api}/commands?${new URLSearchParams({ agent })}`, {
      credentials: config.credentials ?? "same-origin",
      headers: { ...config.headers?.() },
      cache: "no-store",
    })
      .then(async (response) => (response.ok ? ((await response.json()) as { commands: ChatCommand[] }).commands : []))
      .catch(() => [])
      .then((commands) => {
        if (live) setLoaded({ agent, commands });
      });
    return () => {
      live = false;
    };
  }, [config, agent, enabled, loaded?.agent]);
  return loaded?.agent === agent ? loaded.commands : [];
}

export function CommandList({
  id,
  options,
  active,
  onPick,
  onHover,
}: {
  id: string;
  options: ChatCommand[];
  active: number;
  onPick(command: ChatCommand): void;
  onHover(index: number): void;
}) {
  return (
    <ul id={id} className="ic-commands" role="listbox" aria-label="Commands and skills">
      {options.map((command, index) => (
        <li
          key={command.slug}
          id={`${id}-${index}`}
          role="option"
          aria-selected={index === active}
          className="ic-command"
          // mousedown, not click: the text box keeps its focus.
          onMouseDown={(event) => {
            event.preventDefault();
            onPick(command);
          }}
          onMouseEnter={() => onHover(index)}
        >
          <span className="ic-command-slug">/{command.slug}</span>
          <span className="ic-command-text">
            {command.name !== command.slug && <span className="ic-command-name">{command.name}</span>}
            <span className="ic-command-description">{command.description}</span>
          </span>
        </li>
      ))}
    </ul>
  );
}

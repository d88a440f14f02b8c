"use client";
// The console's pages. From 640 px up they are a row (wrapping when an admin's list is longer than
// the window, so none hides off to the side; a tenant admin's fifteen fit one line at 1280 px with
// the row's links padded narrower than the phone menu's); below, a "Menu" button discloses them, so every page
// is a tap away on a phone. The current page's link carries aria-current="page"; on a page under one (an
// agent's chat under Agents) that link carries aria-current="true".
import Link from "next/link";
import { usePathname } from "next/navigation";
import { useId, useState } from "react";

export interface ConsoleLink {
  href: string;
  label: string;
  /** A page outside the app router (the chat): a plain link, so the browser loads it whole. */
  document?: boolean;
}

/** "page" for the link to this page, "true" for the section it is in, undefined otherwise. */
export function currentness(href: string, pathname: string, hrefs: readonly string[]): "page" | "true" | undefined {
  if (pathname === href) return "page";
  if (href === "/" || !pathname.startsWith(`${href}/`)) return undefined;
  // Only the closest section: /admin/schedules is not under /schedules, and no link is /admin.
  const longer = hrefs.some((other) => other.length > href.length && (pathname === other || pathname.startsWith(`${other}/`)));
  return longer ? undefined : "true";
}

const linkClass =
  "block rounded-lg px-3 py-2 sm:px-2 text-muted hover:bg-fg/5 hover:text-fg aria-[current]:bg-accent/10 aria-[current]:font-medium aria-[current]:text-fg";

export function ConsoleNav({ links }: { links: ConsoleLink[] }) {
  const pathname = usePathname();
  // Open on the page where it was opened: a new page closes it without an effect.
  const [openOn, setOpenOn] = useState<string | null>(null);
  const open = openOn === pathname;
  const listId = useId();
  const hrefs = links.map((link) => link.href);
  const current = links.find((link) => currentness(link.href, pathname, hrefs));

  return (
    <nav
      aria-label="Console"
      className="mx-auto max-w-6xl px-3"
      onKeyDown={(event) => {
        if (event.key === "Escape" && open) {
          setOpenOn(null);
          event.currentTarget.querySelector<HTMLButtonElement>("button[aria-controls]")?.focus();
        }
      }}
    >
      <button
        type="button"
        aria-expanded={open}
        aria-controls={listId}
        onClick={() => setOpenOn(open ? null : pathname)}
        className="mb-2 flex w-full items-center justify-between rounded-lg border border-line px-3 py-2 text-sm font-medium sm:hidden"
      >
        <span>
          Menu{current ? <span className="font-normal text-muted"> · {current.label}</span> : null}
        </span>
        <span aria-hidden className={`transition-transform ${open ? "rotate-180" : ""}`}>
          ▾
        </span>
      </button>
      <ul
        id={listId}
        className={`${open ? "grid" : "hidden"} grid-cols-2 gap-1 pb-2 text-sm sm:flex sm:flex-wrap sm:items-center`}
      >
        {links.map((link) => {
          const state = currentness(link.href, pathname, hrefs);
          return (
            <li key={link.href}>
              {link.document ? (
                <a href={link.href} className={linkClass}>
                  {link.label}
                </a>
              ) : (
                <Link href={link.href} aria-current={state} onClick={() => setOpenOn(null)} className={linkClass}>
                  {link.label}
                </Link>
              )}
            </li>
          );
        })}
      </ul>
    </nav>
  );
}

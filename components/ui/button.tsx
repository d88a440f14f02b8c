import type { ComponentPropsWithRef } from "react";

type Variant = "primary" | "ghost" | "danger";

// One text colour per variant: a colour passed in className would compete with the variant's, and
// which wins depends on the stylesheet's order (a ghost's text-fg beat text-danger), so a destructive
// action is a variant of its own.
const variants: Record<Variant, string> = {
  primary: "bg-accent text-accent-fg hover:opacity-90 shadow-sm",
  ghost: "bg-transparent text-fg hover:bg-fg/5",
  /** A ghost button for what cannot be undone (remove, revoke, disconnect): red text. */
  danger: "bg-transparent text-danger hover:bg-danger/10",
};

/** The button's classes, also for the pages written as HTML outside React (server/framework/chat/page.ts). */
export const buttonClass = (variant: Variant = "primary") =>
  `inline-flex h-10 items-center justify-center whitespace-nowrap rounded-lg px-4 text-sm font-medium transition focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent disabled:opacity-60 ${variants[variant]}`;

export function Button({
  variant = "primary",
  className = "",
  ...props
}: ComponentPropsWithRef<"button"> & { variant?: Variant }) {
  return (
    <button
      className={`${buttonClass(variant)} ${className}`}
      {...props}
    />
  );
}

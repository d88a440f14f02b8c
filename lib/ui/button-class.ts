// A button's classes: for the React <Button> (components/ui/button.tsx) and the pages written as HTML
// outside React (server/framework/chat/page.ts), so both look the same.
export type ButtonVariant = "primary" | "ghost" | "danger";

// One text colour per variant: a colour passed in className would compete with the variant's, and
// which wins depends on the stylesheet's order (a ghost's text-fg beat text-danger), so a destructive
// action is a variant of its own.
const variants: Record<ButtonVariant, string> = {
  primary: "bg-accent text-accent-fg hover:opacity-90 shadow-sm",
  ghost: "bg-transparent text-fg hover:bg-fg/5",
  /** A ghost button for what cannot be undone (remove, revoke, disconnect): red text. */
  danger: "bg-transparent text-danger hover:bg-danger/10",
};

export const buttonClass = (variant: ButtonVariant = "primary") =>
  `inline-flex h-10 items-center justify-center whitespace-nowrap rounded-lg px-4 text-sm font-medium transition focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent disabled:opacity-60 ${variants[variant]}`;

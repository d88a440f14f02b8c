import type { ComponentPropsWithRef } from "react";

type Variant = "primary" | "ghost";

const variants: Record<Variant, string> = {
  primary: "bg-accent text-accent-fg hover:opacity-90 shadow-sm",
  ghost: "bg-transparent text-fg hover:bg-fg/5",
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

import type { ComponentPropsWithRef } from "react";
import { buttonClass, type ButtonVariant } from "@/lib/ui/button-class";

export function Button({
  variant = "primary",
  className = "",
  ...props
}: ComponentPropsWithRef<"button"> & { variant?: ButtonVariant }) {
  return (
    <button
      className={`${buttonClass(variant)} ${className}`}
      {...props}
    />
  );
}

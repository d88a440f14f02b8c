import type { ReactNode } from "react";
import { TRPCReactProvider } from "@/components/trpc/react";

// Sign-up and invite acceptance call tRPC.
export default function AuthLayout({ children }: { children: ReactNode }) {
  return <TRPCReactProvider>{children}</TRPCReactProvider>;
}

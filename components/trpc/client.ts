// The browser's tRPC client without React: the provider (components/trpc/react.tsx) builds on it, and a
// component outside the provider (the console header's tenant switcher) loads it when it needs it.
import { createTRPCClient, httpBatchLink } from "@trpc/client";
import type { AppRouter } from "@/server/framework/api/root";

export function createTrpcClient() {
  return createTRPCClient<AppRouter>({ links: [httpBatchLink({ url: "/api/trpc" })] });
}

"use client";
// The browser side of tRPC with TanStack Query: one QueryClient and one tRPC client per provider.
// Only the pages that read through tRPC are wrapped in it (app/(auth)/layout.tsx,
// app/(console)/(trpc)/layout.tsx), so the chat and embed pages do not load it.
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { TRPCClientError } from "@trpc/client";
import { createTRPCContext } from "@trpc/tanstack-react-query";
import { useState, type ReactNode } from "react";
import type { AppRouter } from "@/server/framework/api/root";
import { createTrpcClient } from "./client";

export const { TRPCProvider, useTRPC } = createTRPCContext<AppRouter>();

/**
 * One retry, and none for an answer a retry cannot change (4xx: refused, not found, not set up): the
 * page shows the error at once instead of a skeleton through the retry's back-off.
 */
export function retryOnce(failureCount: number, error: unknown): boolean {
  if (failureCount >= 1) return false;
  const status = error instanceof TRPCClientError ? (error.data as { httpStatus?: number } | undefined)?.httpStatus : undefined;
  return status === undefined || status >= 500;
}

export function TRPCReactProvider({ children }: { children: ReactNode }) {
  const [queryClient] = useState(
    () => new QueryClient({ defaultOptions: { queries: { staleTime: 30_000, retry: retryOnce } } }),
  );
  const [trpcClient] = useState(createTrpcClient);
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        {children}
      </TRPCProvider>
    </QueryClientProvider>
  );
}

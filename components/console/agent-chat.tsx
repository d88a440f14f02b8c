"use client";
// A plain chat with the member's copy of an agent. Each message starts a run (the first) or replies
// to it (the rest) with stream=false through tRPC; runs.get is polled every 500 ms until the run ends
// and its output is shown. After each run the quota meter is refreshed (usage.mine invalidated).
// The richer streaming chat components replace this later.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { FormError, fieldClass } from "@/components/ui/field";
import { useTRPC } from "@/lib/trpc/react";

interface Turn {
  role: "user" | "assistant";
  text: string;
}

const TERMINAL = ["completed", "failed", "cancelled", "closed", "archived"];

/** A refused run's message names the limit ("You have reached your monthly run cap (2 of 2)."). */
const errorMessage = (error: unknown) => (error instanceof Error ? error.message : "Something went wrong. Try again.");

export function AgentChat({ agentId }: { agentId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const agent = useQuery(trpc.agents.get.queryOptions({ id: agentId }));
  const [turns, setTurns] = useState<Turn[]>([]);
  const [draft, setDraft] = useState("");
  const [runId, setRunId] = useState<number | null>(null);
  const [polling, setPolling] = useState(false);
  const [error, setError] = useState<string | undefined>();

  const create = useMutation(trpc.runs.create.mutationOptions());
  const reply = useMutation(trpc.runs.reply.mutationOptions());
  const [partial, setPartial] = useState<string | null>(null);

  /** Polls runs.get every 500 ms until the run ends; returns it. */
  async function untilEnded(id: number) {
    for (;;) {
      const run = await queryClient.fetchQuery({ ...trpc.runs.get.queryOptions({ runId: id }), staleTime: 0 });
      if (TERMINAL.includes(run.status)) return run;
      setPartial(run.output);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }

  async function send(event: FormEvent) {
    event.preventDefault();
    const message = draft.trim();
    if (!message) return setError("Write a message.");
    setError(undefined);
    let started;
    try {
      started = runId === null ? await create.mutateAsync({ agentId, message }) : await reply.mutateAsync({ runId, message });
    } catch (caught) {
      setError(errorMessage(caught));
      return;
    }
    setTurns((current) => [...current, { role: "user", text: message }]);
    setDraft("");
    setRunId(started.id);
    setPolling(true);
    try {
      const run = await untilEnded(started.id);
      const text = run.status === "completed" ? (run.output ?? "") : `The run ${run.status}${run.error ? `: ${run.error}` : "."}`;
      setTurns((current) => [...current, { role: "assistant", text }]);
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setPolling(false);
      setPartial(null);
      void queryClient.invalidateQueries({ queryKey: trpc.usage.mine.queryKey() });
    }
  }

  const busy = polling || create.isPending || reply.isPending;
  return (
    <section aria-labelledby="chat-title" className="space-y-4">
      <h1 id="chat-title" className="text-3xl font-semibold tracking-tight">
        {agent.data ? `Chat with ${agent.data.name}` : "Chat"}
      </h1>
      {agent.isError ? <FormError message="No such agent." /> : null}
      <ol className="min-h-48 space-y-3 rounded-card border border-line bg-surface p-4" aria-label="Conversation" aria-live="polite">
        {turns.map((turn, index) => (
          <li
            key={index}
            data-testid={turn.role === "user" ? "chat-user" : "chat-assistant"}
            className={`max-w-[80%] whitespace-pre-wrap rounded-lg px-3 py-2 text-sm ${turn.role === "user" ? "ml-auto bg-accent text-accent-fg" : "bg-black/5"}`}
          >
            <span className="sr-only">{turn.role === "user" ? "You: " : "Agent: "}</span>
            {turn.text}
          </li>
        ))}
        {polling ? (
          <li className="text-sm text-muted" aria-busy="true">
            {partial ?? "Thinking…"}
          </li>
        ) : null}
      </ol>
      <form onSubmit={send} noValidate className="flex items-start gap-2" aria-label="Send a message">
        <div className="flex-1">
          <label htmlFor="chat-message" className="sr-only">
            Message
          </label>
          <textarea
            id="chat-message"
            rows={2}
            value={draft}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? "chat-error" : undefined}
            onChange={(event) => setDraft(event.target.value)}
            className={`${fieldClass} h-auto py-2`}
            placeholder="Message"
          />
          {error ? (
            <p id="chat-error" role="alert" className="mt-1 text-sm text-danger" data-testid="chat-error">
              {error}
            </p>
          ) : null}
        </div>
        <Button type="submit" disabled={busy}>
          {busy ? "Working…" : "Send"}
        </Button>
        {runId !== null && !busy ? (
          <Button
            type="button"
            variant="ghost"
            onClick={() => {
              setRunId(null);
              setTurns([]);
            }}
          >
            New conversation
          </Button>
        ) : null}
      </form>
    </section>
  );
}

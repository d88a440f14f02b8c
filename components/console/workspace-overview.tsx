"use client";
// The console's home: who is signed in and, in their active workspace, where they stand: their quota
// this month, their agents (a chat with each a click away) and the first steps of a newcomer, each
// ticked once done. Below, the workspaces they belong to. All read through tRPC.
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { card } from "@/components/admin/admin-page";
import { QuotaMeter } from "@/components/quota/quota-meter";
import { EmptyState } from "@/components/ui/empty-state";
import { FormError } from "@/components/ui/field";
import { useTRPC } from "@/components/trpc/react";

const skeleton = "animate-pulse rounded-card bg-fg/5";

export function WorkspaceOverview() {
  const trpc = useTRPC();
  const me = useQuery(trpc.me.get.queryOptions());

  if (me.isPending) {
    return <div className={`h-40 ${skeleton}`} aria-busy="true" aria-label="Loading" />;
  }
  if (me.isError) {
    return (
      <p role="alert" className="text-danger">
        Could not load your workspaces: {me.error.message}
      </p>
    );
  }

  const { user, memberships, activeTenant } = me.data;
  return (
    <section aria-labelledby="welcome">
      <p className="text-sm font-medium text-accent">{activeTenant ? activeTenant.name : "No workspace yet"}</p>
      <h1 id="welcome" className="mt-1 text-3xl font-semibold tracking-tight">
        Welcome, {user.name ?? user.email}
      </h1>
      {user.isOwner ? (
        <p className="mt-2 text-muted">You own this Inlay installation and administer every tenant.</p>
      ) : null}

      {activeTenant ? (
        <div className="mt-8 grid gap-6 lg:grid-cols-[1fr_20rem]">
          <div className="min-w-0 space-y-6">
            <FirstSteps />
            <YourAgents />
          </div>
          <QuotaMeter />
        </div>
      ) : null}

      <h2 className="mt-10 text-sm font-semibold uppercase tracking-wide text-muted">Your workspaces</h2>
      {memberships.length === 0 && user.isOwner ? (
        // The owner administers the installation from outside its workspaces: no one has to invite them.
        <EmptyState title="You are not a member of any workspace." className="mt-3">
          You manage every workspace on{" "}
          <Link href="/admin/tenants" className="font-medium text-accent underline-offset-4 hover:underline">
            Tenants
          </Link>
          . To chat and build agents in one yourself, create it there with your email as its first admin, then open the invite link it shows.
        </EmptyState>
      ) : memberships.length === 0 ? (
        <EmptyState title="You do not belong to a tenant yet." className="mt-3">
          Ask an admin of your company&apos;s workspace for an invite link.
        </EmptyState>
      ) : (
        <ul className="mt-3 grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
          {memberships.map(({ tenant, role }) => (
            <li key={tenant.id} className="rounded-card border border-line bg-surface p-5 shadow-sm" data-testid="workspace">
              <div className="flex items-center justify-between">
                <span className="text-lg font-medium">{tenant.name}</span>
                <span className="rounded-full bg-accent/10 px-2.5 py-0.5 text-xs font-medium text-accent">{role}</span>
              </div>
              <p className="mt-1 text-sm text-muted">{tenant.slug}</p>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function YourAgents() {
  const trpc = useTRPC();
  const agents = useQuery(trpc.agents.list.queryOptions());
  return (
    <section aria-labelledby="your-agents" className={card}>
      <div className="flex items-baseline justify-between gap-4">
        <h2 id="your-agents" className="text-lg font-semibold">
          Your agents
        </h2>
        <Link href="/agents" className="text-sm font-medium text-accent underline-offset-4 hover:underline">
          All agents
        </Link>
      </div>
      {agents.isPending ? <div className={`mt-4 h-20 ${skeleton}`} aria-busy="true" aria-label="Loading your agents" /> : null}
      {agents.isError ? <FormError message={`Could not load your agents: ${agents.error.message}`} /> : null}
      {agents.data?.agents.length === 0 ? (
        <EmptyState title="No agents yet." className="mt-4">
          {agents.data.canCreateTenant || agents.data.canCreatePersonal
            ? "Create one on the Agents page: a name and what it should do."
            : "An admin of your workspace defines them."}
        </EmptyState>
      ) : null}
      {agents.data && agents.data.agents.length > 0 ? (
        <ul className="mt-3 divide-y divide-line" aria-label="Your agents">
          {agents.data.agents.map((agent) => (
            <li key={agent.id} className="flex flex-wrap items-center justify-between gap-3 py-3" data-testid="overview-agent">
              <div className="min-w-0">
                <span className="font-medium">{agent.name}</span>{" "}
                <span className="text-xs text-muted">{agent.scope === "tenant" ? "workspace agent" : "personal"}</span>
              </div>
              <Link href={`/agents/${agent.id}/chat`} className="rounded-lg bg-accent px-3 py-2 text-sm text-accent-fg">
                Chat with {agent.name}
              </Link>
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}

interface Step {
  title: string;
  detail: string;
  href: string;
  action: string;
  done: boolean;
}

/** A newcomer's three steps: an agent to talk to, a first chat, an app the agents may use for them. */
function FirstSteps() {
  const trpc = useTRPC();
  const agents = useQuery(trpc.agents.list.queryOptions());
  const usage = useQuery(trpc.usage.mine.queryOptions());
  const apps = useQuery(trpc.connections.list.queryOptions());
  if (agents.isPending) return <div className={`h-48 ${skeleton}`} aria-busy="true" aria-label="Loading your first steps" />;

  const list = agents.data?.agents ?? [];
  const canCreate = Boolean(agents.data?.canCreateTenant || agents.data?.canCreatePersonal);
  const first = list[0];
  const steps: Step[] = [
    {
      title: canCreate ? "Create or choose an agent" : "Choose an agent",
      detail: canCreate
        ? "An agent is a name and instructions: what it does and how. Your workspace's agents are listed too."
        : "Your workspace's admins define the agents; each member gets their own copy.",
      href: "/agents",
      action: "Go to your agents",
      done: list.length > 0,
    },
    {
      title: "Chat with it",
      detail: `Ask ${first ? first.name : "it"} something. Every run counts against your quota this month.`,
      href: first ? `/agents/${first.id}/chat` : "/agents",
      action: first ? "Start chatting" : "Pick an agent first",
      done: (usage.data?.member.runs.used ?? 0) > 0,
    },
    {
      title: "Connect an app",
      detail: "Let your agents use your own accounts of the apps your workspace offers. You can disconnect at any time.",
      href: "/connections",
      action: "Connect your apps",
      done: Boolean(apps.data?.some((app) => app.connections.length > 0)),
    },
  ];
  const doneCount = steps.filter((step) => step.done).length;

  return (
    <section aria-labelledby="first-steps" className={card} data-testid="first-steps">
      <div className="flex items-baseline justify-between gap-4">
        <h2 id="first-steps" className="text-lg font-semibold">
          First steps
        </h2>
        <span className="text-sm text-muted" data-testid="first-steps-progress">
          {doneCount} of {steps.length} done
        </span>
      </div>
      <ol className="mt-4 space-y-4">
        {steps.map((step, index) => (
          <li key={step.title} className="flex gap-3" data-testid="first-step" data-done={step.done}>
            <span
              aria-hidden
              className={`grid size-7 shrink-0 place-items-center rounded-full text-sm font-semibold ${
                step.done ? "bg-accent text-accent-fg" : "border border-line text-muted"
              }`}
            >
              {step.done ? "✓" : index + 1}
            </span>
            <div className="min-w-0">
              <p className="font-medium">
                {step.title}
                {step.done ? <span className="sr-only"> (done)</span> : null}
              </p>
              <p className="text-sm text-muted">{step.detail}</p>
              <Link href={step.href} className="mt-1 inline-block text-sm font-medium text-accent underline-offset-4 hover:underline">
                {step.action}
              </Link>
            </div>
          </li>
        ))}
      </ol>
    </section>
  );
}

"use client";
// The installation owner's control over open sign-up: open, held for approval, or closed; and the
// sign-ups waiting for approval, each approved (the user and their workspace are made, with the
// sign-up limits) or rejected.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { FormError } from "@/components/ui/field";
import { fromTrpcError } from "@/lib/form-errors";
import { signUpModes, type SignUpMode } from "@inlay/core/schemas/tenancy";
import { useTRPC } from "@/components/trpc/react";
import { card } from "./admin-page";

const modeLabels: Record<SignUpMode, string> = {
  open: "Open: anyone may create a workspace",
  approval: "Approval: sign-ups wait for you to approve them",
  closed: "Closed: only invited people join",
};

export function SignUpsPanel() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const mode = useQuery(trpc.signUps.mode.queryOptions());
  const requests = useQuery(trpc.signUps.list.queryOptions());
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.signUps.pathKey() });
  const setMode = useMutation(trpc.signUps.setMode.mutationOptions({ onSuccess: refresh }));
  const decided = () => Promise.all([refresh(), queryClient.invalidateQueries({ queryKey: trpc.tenants.listAll.queryKey() })]);
  const approve = useMutation(trpc.signUps.approve.mutationOptions({ onSuccess: decided }));
  const reject = useMutation(trpc.signUps.reject.mutationOptions({ onSuccess: decided }));
  const [error, setError] = useState<string>();
  // The choice shows at once (a controlled radio would spring back until the save is read back).
  const [chosen, setChosen] = useState<SignUpMode>();

  const act = async (run: () => Promise<unknown>) => {
    setError(undefined);
    try {
      await run();
    } catch (failure) {
      setError(fromTrpcError(failure).form ?? "Something went wrong. Try again.");
    }
  };
  const busy = setMode.isPending || approve.isPending || reject.isPending;

  return (
    <section className={card} aria-labelledby="sign-up-heading">
      <h2 id="sign-up-heading" className="text-lg font-semibold">
        Sign-up
      </h2>
      <p className="mt-1 text-sm text-muted">Who may create a workspace on the sign-up page (or by a first sign-in with GitHub or Google).</p>
      {mode.data ? (
        <fieldset className="mt-4 space-y-2" disabled={busy}>
          <legend className="sr-only">Sign-up</legend>
          {signUpModes.map((each) => (
            <label key={each} className="flex items-center gap-2 text-sm">
              <input
                type="radio"
                name="sign-up-mode"
                value={each}
                checked={(chosen ?? mode.data.mode) === each}
                onChange={() => {
                  setChosen(each);
                  void act(async () => {
                    try {
                      await setMode.mutateAsync({ mode: each });
                    } finally {
                      setChosen(undefined);
                    }
                  });
                }}
              />
              {modeLabels[each]}
            </label>
          ))}
        </fieldset>
      ) : (
        <div className="mt-4 h-16 animate-pulse rounded-card bg-black/5" aria-busy="true" aria-label="Loading" />
      )}
      <h3 className="mt-6 font-medium">Waiting for approval</h3>
      {requests.data && requests.data.length === 0 ? <p className="mt-2 text-sm text-muted">No sign-ups are waiting.</p> : null}
      <ul className="mt-2 divide-y divide-line" aria-label="Sign-ups waiting for approval">
        {requests.data?.map((request) => (
          <li key={request.id} className="flex flex-wrap items-center justify-between gap-3 py-3" data-testid="sign-up-request">
            <div className="text-sm">
              <span className="font-medium">{request.email}</span> {request.name ? `(${request.name})` : null}
              <span className="block text-muted">Workspace: {request.tenantName}</span>
            </div>
            <div className="flex gap-2">
              <Button disabled={busy} onClick={() => void act(() => approve.mutateAsync({ id: request.id }))}>
                Approve {request.email}
              </Button>
              <Button variant="ghost" disabled={busy} onClick={() => void act(() => reject.mutateAsync({ id: request.id }))}>
                Reject {request.email}
              </Button>
            </div>
          </li>
        ))}
      </ul>
      <FormError message={error ?? (mode.isError ? mode.error.message : requests.isError ? requests.error.message : undefined)} />
    </section>
  );
}

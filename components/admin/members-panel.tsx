"use client";
// Tenant admins: the members, their role (changeable) and removal. A tenant keeps one admin at least;
// the server refuses otherwise and the message is shown.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { FormError } from "@/components/ui/field";
import { useTRPC } from "@/components/trpc/react";
import { card, table, tableScroll, td, th } from "./admin-page";

export function MembersPanel() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const members = useQuery(trpc.members.list.queryOptions());
  const [error, setError] = useState<string>();
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.members.list.queryKey() });
  const onError = (caught: { message: string }) => setError(caught.message);
  const changeRole = useMutation(trpc.members.changeRole.mutationOptions({ onSuccess: refresh, onError }));
  const remove = useMutation(trpc.members.remove.mutationOptions({ onSuccess: refresh, onError }));

  if (members.isPending) return <div className="h-40 animate-pulse rounded-card bg-fg/5" aria-busy="true" aria-label="Loading" />;
  if (members.isError) return <FormError message={`Could not load members: ${members.error.message}`} />;
  return (
    <div className={card}>
      <FormError message={error} />
      <div className={tableScroll}>
        <table className={table}>
          <thead>
            <tr>
              <th className={th}>Member</th>
              <th className={th}>Role</th>
              <th className={th}>Joined</th>
              <th className={th}>
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {members.data.map((member) => (
              <tr key={member.id} data-testid="member-row">
                <td className={td}>
                  <div className="font-medium">{member.name ?? member.email}</div>
                  <div className="text-muted">
                    {member.email}
                    {member.embedUserId !== null ? ` · via your site (user ${member.embedUserId})` : ""}
                  </div>
                </td>
                <td className={td}>
                  <select
                    aria-label={`Role of ${member.email}`}
                    value={member.role}
                    disabled={changeRole.isPending}
                    onChange={(event) => {
                      setError(undefined);
                      changeRole.mutate({ id: member.id, role: event.target.value as "member" | "admin" });
                    }}
                    className="h-9 rounded-lg border border-line bg-surface px-2"
                  >
                    <option value="member">member</option>
                    <option value="admin">admin</option>
                  </select>
                </td>
                <td className={`${td} text-muted`}>{new Date(member.joinedAt).toLocaleDateString("en")}</td>
                <td className={`${td} text-right`}>
                  <Button
                    variant="danger"
                    disabled={remove.isPending}
                    aria-label={`Remove ${member.email}`}
                    onClick={() => {
                      if (!window.confirm(`Remove ${member.email} from this workspace?`)) return;
                      setError(undefined);
                      remove.mutate({ id: member.id });
                    }}
                  >
                    Remove
                  </Button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

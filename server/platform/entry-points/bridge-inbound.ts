// Messages a bridge server delivers (POST /bridges/{id}/inbound, authenticated by the bridge's inbound
// secret) and the answers sent back through its send API (docs/platform-api.md, "Bridges"). Modelled on
// email-inbound.ts: a text equal to the bridge's live link code links the sender's handle; any other
// message goes to the first agent bound to the bridge that takes it (iMessage on, the chat matching when
// the agent names one, the sender allowed) and starts a run, or continues the chat's last run with that
// agent; a durable job per message (BRIDGE_REPLY_JOB) sends the answer when the run ends. Every message
// is logged in platform_bridge_messages, refusals included; the caller's answer is the same whatever
// became of it, so it tells nothing of the agents.
import { timingSafeEqual } from "node:crypto";
import type { z } from "zod";
import { logger } from "@/lib/logger";
import { type BridgeInbound, normalizeHandle } from "@inlay/core/schemas/bridges";
import type { Db } from "../repositories/db";
import type { PlatformConfig } from "../platform-config";
import { PlatformError } from "../errors";
import type { JobQueue } from "../infrastructure/job-queue";
import { guardedFetch } from "../outbound/guarded-fetch";
import { leadAgentId } from "../repositories/agents";
import * as bridges from "../repositories/bridges";
import type { BridgeRow } from "../repositories/bridges";
import { type AnswerJob, answerText, endedRunFor, enqueueAnswer } from "../services/messaging/answer-when-ended";
import { accountActing } from "../services/account/auth";
import { bridgeApiUrl, bridgeOutboundOptions, linkCodeHashOf } from "../services/messaging/bridges";
import { replyToRun } from "../services/runs/run-conversation";
import { requestRun } from "../services/runs/run-target";
import type { RunServiceContext } from "../services/runs/run-context";
import { sha256Hex } from "@/server/shared/secret-box";

export const BRIDGE_REPLY_JOB = "bridge-reply";
const SEND_TIMEOUT_MS = 15_000;

export type BridgeInboundContext = RunServiceContext & { jobs: JobQueue };
type Inbound = z.infer<typeof BridgeInbound>;

const unauthenticated = () =>
  new PlatformError({ type: "authentication_error", message: "missing or wrong bridge secret: send X-Bridge-Secret (POST /bridges/{id}/rotate-secret)" });

/** The bridge whose inbound secret `secret` is; an unknown bridge and a wrong secret answer alike. */
export async function authenticateBridge(prisma: Db, bridgeId: number, secret: string | undefined): Promise<BridgeRow> {
  const row = await bridges.findBridgeById(prisma, bridgeId);
  const expected = Buffer.from(row?.inboundSecretHash ?? sha256Hex("no secret"), "hex");
  const given = Buffer.from(sha256Hex(secret ?? ""), "hex");
  if (!row || !row.inboundSecretHash || !secret || !timingSafeEqual(expected, given)) throw unauthenticated();
  return row;
}

type Target = Awaited<ReturnType<typeof bridges.inboundAgents>>[number];

/**
 * The agent the message goes to: of the bridge's agents taking iMessage, those whose chat is this one
 * first, then those naming no chat, oldest first; the first that allows the sender (its
 * allowed_imessage_senders, a handle linked to the bridge, or the bridge's owner_handle for the lead agent).
 */
async function routeMessage(prisma: Db, bridge: BridgeRow, handle: string, chatGuid: string): Promise<Target | null> {
  const agents = await bridges.inboundAgents(prisma, bridge.accountId, bridge.id);
  const candidates = [
    ...agents.filter((agent) => agent.imessageChatGuid === chatGuid),
    ...agents.filter((agent) => agent.imessageChatGuid === null || agent.imessageChatGuid === ""),
  ];
  if (candidates.length === 0) return null;
  const linked = await bridges.isHandleLinked(prisma, bridge.id, handle);
  const isOwner = bridge.ownerHandle !== null && bridge.ownerHandle === handle;
  const lead = isOwner ? await leadAgentId(prisma, { accountId: bridge.accountId, endUserId: null }) : null;
  return (
    candidates.find(
      (agent) => linked || agent.allowedImessageSenders.some((allowed) => normalizeHandle(allowed) === handle) || (isOwner && agent.id === lead),
    ) ?? null
  );
}

export async function receiveBridgeMessage(ctx: BridgeInboundContext, bridge: BridgeRow, input: Inbound): Promise<{ runId: number | null }> {
  const handle = normalizeHandle(input.handle);
  const logged = { accountId: bridge.accountId, bridgeId: bridge.id, direction: "inbound", handle, chatGuid: input.chat_guid, messageGuid: input.message_guid ?? null };
  // A message delivered again (the bridge server's retry after a lost answer, even one racing the
  // first delivery) starts nothing new: its row is claimed before it is acted on, and gets the outcome.
  let claimed: number | undefined;
  if (input.message_guid) {
    const row = await bridges.claimInboundMessage(ctx.prisma, { ...logged, messageGuid: input.message_guid, status: "received" });
    if (!row) {
      const delivered = await bridges.findDeliveredMessage(ctx.prisma, bridge.id, input.message_guid);
      return { runId: delivered?.runId ?? null };
    }
    claimed = row.id;
  }
  const record = (outcome: bridges.InboundOutcome) =>
    claimed === undefined
      ? bridges.insertBridgeMessage(ctx.prisma, { ...logged, ...outcome })
      : bridges.recordInboundOutcome(ctx.prisma, claimed, outcome);
  let started: { runId: number; continued: boolean } | undefined;
  try {
    if (bridge.status !== "active") {
      await record({ status: "ignored", reason: `the bridge is ${bridge.status}` });
      return { runId: null };
    }
    if (bridge.linkCodeHash && (await bridges.consumeLinkCode(ctx.prisma, bridge.id, linkCodeHashOf(input.text), new Date()))) {
      await bridges.linkHandle(ctx.prisma, bridge.id, handle);
      await record({ status: "linked" });
      return { runId: null };
    }
    const agent = await routeMessage(ctx.prisma, bridge, handle, input.chat_guid);
    if (!agent) {
      const reason = "no agent on this bridge takes messages from this sender in this chat";
      await record({ status: "refused", reason });
      logger.info({ accountId: bridge.accountId, bridgeId: bridge.id }, `bridge message refused: ${reason}`);
      return { runId: null };
    }
    const text = `From: ${handle} (iMessage)\n\n${input.text.trim() || "(no text)"}`;
    try {
      started = await startOrContinue(ctx, bridge, agent, input.chat_guid, text);
    } catch (error) {
      if (error instanceof PlatformError) {
        await record({ agentId: agent.id, status: "refused", reason: `${error.type}: ${error.message}` });
        logger.info({ accountId: bridge.accountId, bridgeId: bridge.id, agentId: agent.id }, `bridge message refused: ${error.message}`);
        return { runId: null };
      }
      throw error;
    }
    const row = await record({ agentId: agent.id, runId: started.runId, status: started.continued ? "continued" : "started" });
    await enqueueAnswer(ctx.jobs, BRIDGE_REPLY_JOB, row.id);
    return { runId: started.runId };
  } catch (error) {
    // Not acted on: the bridge server's next delivery of it may try again.
    if (claimed !== undefined && !started) await bridges.deleteBridgeMessage(ctx.prisma, claimed).catch(() => {});
    throw error;
  }
}

async function startOrContinue(ctx: BridgeInboundContext, bridge: BridgeRow, agent: Target, chatGuid: string, text: string) {
  const userId = agent.endUser?.externalId ?? null;
  // The chat is the thread: its last run with this agent continues, as POST /runs/{id}/reply would,
  // when it can take a reply (finished, with its conversation kept); otherwise a run of its own starts.
  const earlier = await bridges.latestRunInChat(ctx.prisma, bridge.id, chatGuid, agent.id);
  if (earlier?.runId) {
    try {
      await replyToRun(ctx, { accountId: bridge.accountId, endUserId: agent.endUserId, userId }, earlier.runId, { message: text });
      return { runId: earlier.runId, continued: true };
    } catch (error) {
      if (!(error instanceof PlatformError && (error.type === "conflict_error" || error.type === "not_found"))) throw error;
    }
  }
  const { run } = await requestRun(ctx, accountActing(bridge.accountId), userId ?? undefined, {
    message: text,
    teammate_id: agent.id,
    stream: false,
    metadata: { source: "imessage", bridge_id: bridge.id },
  });
  return { runId: run.id, continued: false };
}

// ---------------------------------------------------------------------------------------------
// The answer by iMessage, once the run has ended

export interface BridgeReplyDeps {
  prisma: Db;
  jobs: JobQueue;
  config: PlatformConfig;
}

/**
 * The reply job: when the message's run has ended (completed or failed; a cancelled run answers
 * nothing), POSTs its answer to the bridge server's send API ({server_url}/api/v1/message/text, the
 * chat's guid and the text), through the outbound guard, once (the reply row is claimed first); while
 * the run goes on, looks again later. A paused or deleted bridge sends nothing.
 */
export async function registerBridgeReplies(deps: BridgeReplyDeps): Promise<void> {
  const { prisma, jobs, config } = deps;
  const reply = async ({ data }: { data: AnswerJob }) => {
    const inbound = await bridges.findBridgeMessage(prisma, data.inboundId);
    if (!inbound) return { skipped: "no message" };
    const ended = await endedRunFor(prisma, jobs, BRIDGE_REPLY_JOB, inbound, data.attempt);
    if ("result" in ended) return ended.result;
    const { run } = ended;
    const bridge = await bridges.findBridgeById(prisma, inbound.bridgeId);
    if (!bridge) return { skipped: "bridge gone" };
    if (bridge.status !== "active") return { skipped: `bridge ${bridge.status}` };
    const claimed = await bridges.claimReply(prisma, {
      accountId: inbound.accountId,
      bridgeId: inbound.bridgeId,
      agentId: inbound.agentId,
      runId: inbound.runId,
      handle: inbound.handle,
      chatGuid: inbound.chatGuid,
      answersId: inbound.id,
    });
    if (claimed === null) return { skipped: "replied already" };
    try {
      const response = await guardedFetch(
        bridgeApiUrl(config, bridge, "/api/v1/message/text"),
        { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ chatGuid: inbound.chatGuid, message: answerText(run, { withError: false }) }) },
        bridgeOutboundOptions(config, SEND_TIMEOUT_MS),
      );
      if (response.status < 200 || response.status >= 300) throw new Error(`the bridge server answered ${response.status}`);
    } catch (error) {
      // Not sent: give the claim back, so the job's retry sends it. The URL carries the password, so only
      // the message is logged: OutboundError's names the host and reason, ours the status.
      await bridges.deleteBridgeMessage(prisma, claimed);
      const why = error instanceof Error ? error.message : "unknown";
      logger.warn({ inboundId: inbound.id, bridgeId: bridge.id }, `bridge reply not sent: ${why}`);
      throw new Error(`bridge reply not sent: ${why}`);
    }
    return { sent: claimed };
  };
  await jobs.register<AnswerJob>(BRIDGE_REPLY_JOB, reply, { concurrency: 2, expireInSeconds: 120 });
}

// An in-process webhook endpoint of the app (PlatformConfig.inProcessWebhooks) that holds every
// delivery until the test lets it go: a slow handler, so that attempts pile up under way.
import type { PlatformConfig } from "@/server/platform/platform-config";

export interface HeldEndpoint {
  target: NonNullable<PlatformConfig["inProcessWebhooks"]>[number];
  /** The run ids of the deliveries received so far, in order. */
  held: number[];
  /** Answers every delivery held and every later one at once. */
  letGo(): void;
}

export function heldEndpoint(url: string): HeldEndpoint {
  let letGo: () => void = () => {};
  const released = new Promise<void>((resolve) => (letGo = resolve));
  const held: number[] = [];
  return {
    target: {
      url,
      async receive(request: Request) {
        held.push((JSON.parse(await request.text()) as { run_id: number }).run_id);
        await released;
        return new Response(null, { status: 204 });
      },
    },
    held,
    letGo: () => letGo(),
  };
}

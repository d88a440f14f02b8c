// Gives every request an id, returned as `x-request-id` and quoted in every error envelope.
import { randomUUID } from "node:crypto";
import { requestId as honoRequestId } from "hono/request-id";

export const requestId = () =>
  honoRequestId({
    headerName: "x-request-id",
    // A caller's own id is kept only when it is short and plain, so it cannot forge log lines.
    generator: () => `req_${randomUUID().replaceAll("-", "")}`,
    limitLength: 64,
  });

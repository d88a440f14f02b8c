// The signed-in user, for server components, route handlers and the tRPC context.
import { getServerSession } from "next-auth";
import { authOptions } from "./options";

export const getSession = () => getServerSession(authOptions);

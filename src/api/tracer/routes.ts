/**
 * The request tracer's route (docs/custom-errors.md "Request tracer"): `POST /accounts/{account}/request-tracer/trace`,
 * `zones:read` on the account (the zone's own scope is checked by the handler, tracer.ts). It stores nothing.
 */
import { API_FAILURES, type ApiFailure } from "../kit/envelope";
import type { AccessTarget } from "../kit/auth";
import type { ApiRoute } from "../kit/types";
import { isAccountId } from "../../state/zone/schema";
import { err, ok, type Result } from "../../shared/result";
import { traceRequest } from "./tracer";

/** The tracer's target: the account in the path; anything but 32 lower-case hex is 404, as the tagging API's. */
function accountTarget(params: Readonly<Record<string, string>>): Result<AccessTarget, ApiFailure> {
  const account = params.account ?? "";
  return isAccountId(account) ? ok({ kind: "account", id: account }) : err(API_FAILURES.notFound());
}

export const tracerRoutes: readonly ApiRoute[] = [
  {
    method: "POST",
    path: "/accounts/:account/request-tracer/trace",
    permission: "zones:read",
    target: accountTarget,
    handle: traceRequest,
  },
];

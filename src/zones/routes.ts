/**
 * Zone configuration API routes (contract §6).
 * PLACEHOLDER of the foundation skeleton: the origin issue registers `/zones/:zone`.
 */
import type { ApiRouter } from "../api/router";

export function registerZoneRoutes(_router: ApiRouter): void {}

/**
 * One SQLite-backed Durable Object per account: the tagging store (contract §5).
 * PLACEHOLDER of the foundation skeleton: the tagging issue fills it.
 */
import { DurableObject } from "cloudflare:workers";

export class TagStore extends DurableObject<Env> {}

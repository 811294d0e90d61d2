import type { DpaAcceptanceRow } from './dpa.repository.js';

export function presentDpaAcceptance(row: DpaAcceptanceRow) {
  return { version: row.version, accepted_by: row.accepted_by, api_key_id: row.api_key_id, accepted_at: row.accepted_at.toISOString() };
}

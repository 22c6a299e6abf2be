/**
 * Values computed from the graph itself carry the `__derived` prefix (CONTRACT §6) and are only ever recomputed:
 * every writer that creates or changes `Paper` nodes or `CITES` sets them with this fragment (node variable `p`).
 */
export const SET_DERIVED_CITATIONS =
  'p.__derived_citations_in = COUNT { (p)<-[:CITES]-(:Paper) }, ' +
  'p.__derived_citations_out = COUNT { (p)-[:CITES]->(:Paper) }';

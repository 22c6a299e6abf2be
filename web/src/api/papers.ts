import { api, apiFetch, ApiError, detailOf, pathId, readBody } from './client';
import type { JobSnapshot, PaperDetail } from './types';

export type Kind = 'markdown' | 'pdf';

const isSnapshot = (b: unknown): b is JobSnapshot =>
  typeof b === 'object' && b !== null && typeof (b as { state?: unknown }).state === 'string';

/** `GET …/<kind>/status` (CONTRACT §11.4): side-effect free; 400/404/5xx only for resolution failures. */
export const fetchStatus = (id: string, kind: Kind): Promise<JobSnapshot> =>
  api<JobSnapshot>(`/api/papers/${pathId(id)}/${kind}/status`);

export type TriggerResult = { bytes: Blob; snapshot?: undefined } | { bytes?: undefined; snapshot: JobSnapshot };

/**
 * `GET …/markdown` or `…/pdf`: the bytes on a cache hit, else the job snapshot (202 while it works; failed,
 * cooldown and unavailable snapshots come with 404/502/503 and are results here, not errors).
 */
export async function trigger(id: string, kind: Kind): Promise<TriggerResult> {
  const response = await apiFetch(`/api/papers/${pathId(id)}/${kind}`, {
    headers: { Accept: kind === 'pdf' ? 'application/pdf, application/json' : 'text/markdown, application/json' },
  });
  if (response.status === 200) return { bytes: await response.blob() };
  const body = await readBody(response);
  if (isSnapshot(body)) return { snapshot: body };
  throw new ApiError(response.status, detailOf(body, response), body);
}

/**
 * `GET /api/papers/{id}` (CONTRACT §18.2), or null when the server holds nothing for the paper (404 `not hosted`).
 * Any other failure, such as a DOI the server cannot resolve, stays an error.
 */
export async function fetchPaper(id: string, signal?: AbortSignal): Promise<PaperDetail | null> {
  try {
    return await api<PaperDetail>(`/api/papers/${pathId(id)}`, { signal });
  } catch (error) {
    if (error instanceof ApiError && error.status === 404 && error.detail.startsWith('not hosted')) return null;
    throw error;
  }
}

/** `GET /api/papers/{id}/images/zip`: every stored image of the paper as one zip. */
export async function fetchImagesZip(id: string): Promise<Blob> {
  const response = await apiFetch(`/api/papers/${pathId(id)}/images/zip`, {
    headers: { Accept: 'application/zip, application/json' },
  });
  if (response.ok) return response.blob();
  const body = await readBody(response);
  throw new ApiError(response.status, detailOf(body, response), body);
}

/** A job that is still working (poll its status). */
export const isActive = (s: JobSnapshot | undefined): boolean => s?.state === 'queued' || s?.state === 'running';

/** Saves a Blob under `filename` through a temporary object URL (the API needs the Authorization header). */
export function saveBlob(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

import PocketBase from 'pocketbase';

/**
 * The PocketBase-compatible user API of pksd (CONTRACT §7.2): sign-in, renewal and the user's own record. The
 * session lives in localStorage (the SDK's LocalAuthStore, shared by every tab of the origin).
 */
export const pb = new PocketBase(window.location.origin);
// Several components may ask for the same record at once; the SDK would cancel all but the last.
pb.autoCancellation(false);

/**
 * The `@modelcontextprotocol/server` version whose behaviour the bypass reproduces (README.md beside this
 * file lists what). Moving the SDK means reading that list against the new version, then moving this.
 */
export const REVIEWED_SDK_VERSION = '2.4.0';

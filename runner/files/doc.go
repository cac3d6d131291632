// Package files holds the Azure Files workloads reached over SMB (kinds
// files.*): each actor logs on with its own SMB session (runner/smb2) to the
// target's share (a managed Samba, target kind samba) and records every
// open, close, read and write it makes into the history, with the open's
// desired access and share access in the op's input, so that the checks
// of checks/smb can judge them.
package files

package smb2

import (
	"errors"
	"fmt"
)

// Status is an NTSTATUS code as carried in the SMB2 header.
type Status uint32

// The statuses stormcheck's workloads meet or decide on ([MS-ERREF] 2.3.1).
const (
	StatusSuccess                Status = 0x00000000
	StatusPending                Status = 0x00000103
	StatusNotifyEnumDir          Status = 0x0000010C
	StatusBufferOverflow         Status = 0x80000005
	StatusNoMoreFiles            Status = 0x80000006
	StatusUnsuccessful           Status = 0xC0000001
	StatusNotImplemented         Status = 0xC0000002
	StatusInvalidHandle          Status = 0xC0000008
	StatusInvalidParameter       Status = 0xC000000D
	StatusNoSuchFile             Status = 0xC000000F
	StatusEndOfFile              Status = 0xC0000011
	StatusMoreProcessingRequired Status = 0xC0000016
	StatusAccessDenied           Status = 0xC0000022
	StatusBufferTooSmall         Status = 0xC0000023
	StatusObjectNameInvalid      Status = 0xC0000033
	StatusObjectNameNotFound     Status = 0xC0000034
	StatusObjectNameCollision    Status = 0xC0000035
	StatusObjectPathNotFound     Status = 0xC000003A
	StatusSharingViolation       Status = 0xC0000043
	StatusDeletePending          Status = 0xC0000056
	StatusFileLockConflict       Status = 0xC0000054
	StatusLockNotGranted         Status = 0xC0000055
	StatusPrivilegeNotHeld       Status = 0xC0000061
	StatusLogonFailure           Status = 0xC000006D
	StatusRangeNotLocked         Status = 0xC000007E
	StatusInsufficientResources  Status = 0xC000009A
	StatusFileIsADirectory       Status = 0xC00000BA
	StatusNotSupported           Status = 0xC00000BB
	StatusNetworkNameDeleted     Status = 0xC00000C9
	StatusBadNetworkName         Status = 0xC00000CC
	StatusRequestNotAccepted     Status = 0xC00000D0
	StatusDirectoryNotEmpty      Status = 0xC0000101
	StatusNotADirectory          Status = 0xC0000103
	StatusCancelled              Status = 0xC0000120
	StatusFileClosed             Status = 0xC0000128
	StatusUserSessionDeleted     Status = 0xC0000203
	StatusNetworkSessionExpired  Status = 0xC000035C
	StatusInvalidDeviceRequest   Status = 0xC0000010
	StatusIOTimeout              Status = 0xC00000B5
	StatusFileNotAvailable       Status = 0xC0000467
)

var statusNames = map[Status]string{
	StatusSuccess:                "STATUS_SUCCESS",
	StatusPending:                "STATUS_PENDING",
	StatusNotifyEnumDir:          "STATUS_NOTIFY_ENUM_DIR",
	StatusBufferOverflow:         "STATUS_BUFFER_OVERFLOW",
	StatusNoMoreFiles:            "STATUS_NO_MORE_FILES",
	StatusUnsuccessful:           "STATUS_UNSUCCESSFUL",
	StatusNotImplemented:         "STATUS_NOT_IMPLEMENTED",
	StatusInvalidHandle:          "STATUS_INVALID_HANDLE",
	StatusInvalidParameter:       "STATUS_INVALID_PARAMETER",
	StatusNoSuchFile:             "STATUS_NO_SUCH_FILE",
	StatusEndOfFile:              "STATUS_END_OF_FILE",
	StatusMoreProcessingRequired: "STATUS_MORE_PROCESSING_REQUIRED",
	StatusAccessDenied:           "STATUS_ACCESS_DENIED",
	StatusBufferTooSmall:         "STATUS_BUFFER_TOO_SMALL",
	StatusObjectNameInvalid:      "STATUS_OBJECT_NAME_INVALID",
	StatusObjectNameNotFound:     "STATUS_OBJECT_NAME_NOT_FOUND",
	StatusObjectNameCollision:    "STATUS_OBJECT_NAME_COLLISION",
	StatusObjectPathNotFound:     "STATUS_OBJECT_PATH_NOT_FOUND",
	StatusSharingViolation:       "STATUS_SHARING_VIOLATION",
	StatusDeletePending:          "STATUS_DELETE_PENDING",
	StatusFileLockConflict:       "STATUS_FILE_LOCK_CONFLICT",
	StatusLockNotGranted:         "STATUS_LOCK_NOT_GRANTED",
	StatusPrivilegeNotHeld:       "STATUS_PRIVILEGE_NOT_HELD",
	StatusLogonFailure:           "STATUS_LOGON_FAILURE",
	StatusRangeNotLocked:         "STATUS_RANGE_NOT_LOCKED",
	StatusInsufficientResources:  "STATUS_INSUFFICIENT_RESOURCES",
	StatusFileIsADirectory:       "STATUS_FILE_IS_A_DIRECTORY",
	StatusNotSupported:           "STATUS_NOT_SUPPORTED",
	StatusNetworkNameDeleted:     "STATUS_NETWORK_NAME_DELETED",
	StatusBadNetworkName:         "STATUS_BAD_NETWORK_NAME",
	StatusRequestNotAccepted:     "STATUS_REQUEST_NOT_ACCEPTED",
	StatusDirectoryNotEmpty:      "STATUS_DIRECTORY_NOT_EMPTY",
	StatusNotADirectory:          "STATUS_NOT_A_DIRECTORY",
	StatusCancelled:              "STATUS_CANCELLED",
	StatusFileClosed:             "STATUS_FILE_CLOSED",
	StatusUserSessionDeleted:     "STATUS_USER_SESSION_DELETED",
	StatusNetworkSessionExpired:  "STATUS_NETWORK_SESSION_EXPIRED",
	StatusInvalidDeviceRequest:   "STATUS_INVALID_DEVICE_REQUEST",
	StatusIOTimeout:              "STATUS_IO_TIMEOUT",
	StatusFileNotAvailable:       "STATUS_FILE_NOT_AVAILABLE",
}

// String is the status's name (STATUS_SHARING_VIOLATION), or its hex value.
func (s Status) String() string {
	if n, ok := statusNames[s]; ok {
		return n
	}
	return fmt.Sprintf("NTSTATUS(0x%08X)", uint32(s))
}

// Error makes a Status usable as a target of errors.Is.
func (s Status) Error() string { return s.String() }

// IsError reports whether the severity bits say error (0xC...).
func (s Status) IsError() bool { return s>>30 == 3 }

// Error is a server's refusal of one request: the command and the status.
type Error struct {
	Command Command
	Status  Status
}

func (e *Error) Error() string {
	return fmt.Sprintf("smb2: %s: %s", e.Command, e.Status)
}

// Is lets errors.Is(err, smb2.StatusX) match an *Error carrying StatusX.
func (e *Error) Is(target error) bool {
	s, ok := target.(Status)
	return ok && s == e.Status
}

// StatusOf returns the server status carried by err (StatusSuccess for a
// nil error); ok is false when err is not a server's answer (a broken
// connection, a cancelled context, a malformed message).
func StatusOf(err error) (st Status, ok bool) {
	if err == nil {
		return StatusSuccess, true
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Status, true
	}
	return 0, false
}

// IsStatus reports whether err is a server answer with status st.
func IsStatus(err error, st Status) bool {
	got, ok := StatusOf(err)
	return ok && got == st
}

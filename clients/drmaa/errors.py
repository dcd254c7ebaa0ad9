"""The DRMAA 1.0 error codes (drmaa.h's DRMAA_ERRNO_*) and the error the agent's
modules raise: one code and Grid Engine's diagnosis text, which reaches the caller's
``error_diagnosis`` buffer."""
from __future__ import annotations

SUCCESS = 0
INTERNAL_ERROR = 1
DRM_COMMUNICATION_FAILURE = 2
AUTH_FAILURE = 3
INVALID_ARGUMENT = 4
NO_ACTIVE_SESSION = 5
NO_MEMORY = 6
INVALID_CONTACT_STRING = 7
DEFAULT_CONTACT_STRING_ERROR = 8
NO_DEFAULT_CONTACT_STRING_SELECTED = 9
DRMS_INIT_FAILED = 10
ALREADY_ACTIVE_SESSION = 11
DRMS_EXIT_ERROR = 12
INVALID_ATTRIBUTE_FORMAT = 13
INVALID_ATTRIBUTE_VALUE = 14
CONFLICTING_ATTRIBUTE_VALUES = 15
TRY_LATER = 16
DENIED_BY_DRM = 17
INVALID_JOB = 18
RESUME_INCONSISTENT_STATE = 19
SUSPEND_INCONSISTENT_STATE = 20
HOLD_INCONSISTENT_STATE = 21
RELEASE_INCONSISTENT_STATE = 22
EXIT_TIMEOUT = 23
NO_RUSAGE = 24
NO_MORE_ELEMENTS = 25

# the texts 8.1.9's libdrmaa gives where it has nothing more particular to say
# (tests/data/reference/drmaa/capture.json, "strerror")
NO_SUCH_JOB = "The job specified by the 'jobid' does not exist."
INVALID_VALUE = "The value for the job attribute is invalid."
INVALID_INPUT = "The input value for an argument is invalid."
TIMED_OUT = "time-out condition"
NO_USAGE = "no usage information was returned for the completed job"


class DrmaaError(Exception):
    """A call's failure: ``code`` (one of the above) and ``text`` (the diagnosis)."""

    def __init__(self, code: int, text: str) -> None:
        super().__init__(text)
        self.code = code
        self.text = text

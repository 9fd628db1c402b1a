"""DfmError: a dfm or plugin failure, carrying dfm's result code and message."""


class DfmError(RuntimeError):
    """A call into dfm or the pybullet plugin failed.

    ``code`` is the dfm_result (negative, see dfm_base.h; 0 when the failure is the package's own,
    e.g. a disconnected client) and ``name`` its name ("DFM_ERROR_INVALID_VALUE"); the text is
    dfm's message, which names the offending field or item.
    """

    def __init__(self, message, code=0, name=""):
        self.code = int(code)
        self.name = name
        self.message = message
        super().__init__(message if not name or name in message else f"{message} ({name})")

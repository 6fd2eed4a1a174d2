"""Types of scorekit's optional C helper (scorekit/_speedups.c); see its header for what each does.

Every function is positional-only (METH_O or METH_FASTCALL). ``None`` means "not handled exactly
here": the caller then takes its Python path.
"""

from _typeshed import ReadableBuffer

def canonical(obj: object, /) -> bytes | None: ...
def exact_key(obj: object, /) -> bytes | None: ...
def evidence_canonical(
    case_id: object,
    control: object,
    dimension: object,
    id: object,
    included: object,
    label: object,
    reason: object,
    status: object,
    trial: object,
    /,
) -> bytes | None: ...
def definition_text(raw: ReadableBuffer, fields: tuple[bytes, ...], /) -> bytes | None: ...
def text_is_clean(data: ReadableBuffer, /) -> bool: ...
def duplicate_key(raw: ReadableBuffer, /) -> int: ...
def sha256_texts(offsets: ReadableBuffer, data: ReadableBuffer, width: int, out: ReadableBuffer,
                 hardware: bool, /) -> None: ...

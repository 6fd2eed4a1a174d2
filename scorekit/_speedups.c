/*
 * scorekit._speedups: the engine's per-row integrity work in C.
 *
 * Optional: scorekit/_hashing.py and scorekit/_rows.py keep the pure-Python
 * versions and use them when this module is not built; tests compare the two
 * (and the hash form against the rfc8785 package) with hypothesis.
 *
 *   canonical(obj)          RFC 8785 (JCS) bytes of obj after every number is
 *                           replaced by its type-tagged string (SPEC 10:
 *                           1 -> "i:1", 1.0 -> "f:1.0"); None when obj holds
 *                           anything this code does not handle exactly (a type
 *                           other than dict/list/tuple/str/int/float/bool/None,
 *                           a subclass, a lone surrogate, a key beyond U+FFFF
 *                           where JCS orders by UTF-16 units, deep nesting):
 *                           the caller then takes the Python path.
 *   exact_key(obj)          an injective text form of obj for grouping equal
 *                           values (1, 1.0, True and "1" all differ; object key
 *                           order does not matter); None as above.
 *   evidence_canonical(...) canonical() of one evidence record, from its nine
 *                           values in JCS key order (no dict built per row).
 *   definition_text(raw, fields)  the raw text of the named top-level fields of
 *                           one JSON object, for a cheap case-definition key.
 *   text_is_clean(data)     scorekit._rows.text_is_clean in one pass over a buffer.
 *   duplicate_key(raw)      for valid JSON text: 0 when no object in it repeats
 *                           a key, 1 when one does, -1 when unsure (an escaped
 *                           key, an object with very many keys, deep nesting).
 *   sha256_texts(offsets, data, width, out, hardware)  the SHA-256 of every text of an
 *                           Arrow string column, into out (32 bytes each), with the
 *                           CPU's SHA instructions where it has them; GIL released.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#define MAX_DEPTH 256        /* duplicate_key: containers open at once */
#define MAX_VALUE_DEPTH 100  /* canonical, exact_key: recursion depth (C stack) */
#define UNSUPPORTED 1

typedef struct {
    char *data;
    Py_ssize_t len;
    Py_ssize_t cap;
    char small[1024];
} Buf;

static void buf_init(Buf *b) {
    b->data = b->small;
    b->len = 0;
    b->cap = sizeof(b->small);
}

static void buf_free(Buf *b) {
    if (b->data != b->small) PyMem_Free(b->data);
}

static int buf_reserve(Buf *b, Py_ssize_t extra) {
    if (b->len + extra <= b->cap) return 0;
    Py_ssize_t cap = b->cap;
    while (cap < b->len + extra) {
        if (cap > PY_SSIZE_T_MAX / 2) {
            PyErr_NoMemory();
            return -1;
        }
        cap *= 2;
    }
    char *data;
    if (b->data == b->small) {
        data = PyMem_Malloc(cap);
        if (data) memcpy(data, b->small, b->len);
    } else {
        data = PyMem_Realloc(b->data, cap);
    }
    if (!data) {
        PyErr_NoMemory();
        return -1;
    }
    b->data = data;
    b->cap = cap;
    return 0;
}

static inline int buf_put(Buf *b, const char *s, Py_ssize_t n) {
    if (buf_reserve(b, n) < 0) return -1;
    memcpy(b->data + b->len, s, n);
    b->len += n;
    return 0;
}

static inline int buf_putc(Buf *b, char c) {
    if (buf_reserve(b, 1) < 0) return -1;
    b->data[b->len++] = c;
    return 0;
}

/* UTF-8 of a str. ASCII text is read in place; other text is encoded into a
   new bytes object returned in *owner (the caller releases it), never through
   PyUnicode_AsUTF8AndSize, which would keep a UTF-8 copy of every agent output
   alive inside its string. NULL with no error set: a lone surrogate. */
static const char *utf8_of(PyObject *s, Py_ssize_t *n, PyObject **owner) {
    *owner = NULL;
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(s) < 0) return NULL; /* a legacy string (3.11 and older) */
#endif
    if (PyUnicode_IS_ASCII(s)) {
        *n = PyUnicode_GET_LENGTH(s);
        return (const char *)PyUnicode_DATA(s);
    }
    PyObject *encoded = PyUnicode_AsUTF8String(s);
    if (encoded == NULL) {
        if (PyErr_ExceptionMatches(PyExc_UnicodeEncodeError)) PyErr_Clear();
        return NULL;
    }
    *owner = encoded;
    *n = PyBytes_GET_SIZE(encoded);
    return PyBytes_AS_STRING(encoded);
}

/* A JSON string as JCS writes it (and json.dumps(ensure_ascii=False)):
   '"' and '\\' escaped, \b \f \n \r \t by name, other controls as \u00xx. */
static int put_escaped(Buf *b, const char *u, Py_ssize_t n) {
    static const char hex[] = "0123456789abcdef";
    if (buf_putc(b, '"') < 0) return -1;
    Py_ssize_t run = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)u[i];
        if (c >= 0x20 && c != '"' && c != '\\') continue;
        if (buf_put(b, u + run, i - run) < 0) return -1;
        run = i + 1;
        char esc[6] = {'\\', 0, 0, 0, 0, 0};
        Py_ssize_t len = 2;
        switch (c) {
            case '"': esc[1] = '"'; break;
            case '\\': esc[1] = '\\'; break;
            case '\b': esc[1] = 'b'; break;
            case '\f': esc[1] = 'f'; break;
            case '\n': esc[1] = 'n'; break;
            case '\r': esc[1] = 'r'; break;
            case '\t': esc[1] = 't'; break;
            default:
                esc[1] = 'u'; esc[2] = '0'; esc[3] = '0';
                esc[4] = hex[c >> 4]; esc[5] = hex[c & 15];
                len = 6;
        }
        if (buf_put(b, esc, len) < 0) return -1;
    }
    if (buf_put(b, u + run, n - run) < 0) return -1;
    return buf_putc(b, '"');
}

static int put_str(Buf *b, PyObject *s) {
    Py_ssize_t n;
    PyObject *owner;
    const char *u = utf8_of(s, &n, &owner);
    if (u == NULL) return PyErr_Occurred() ? -1 : UNSUPPORTED;
    int rc = put_escaped(b, u, n);
    Py_XDECREF(owner);
    return rc;
}

/* Tagged number text: "i:<repr>" / "f:<repr>", quoted in JCS mode, bare in exact mode. */
static int put_number(Buf *b, PyObject *o, int is_float, int quoted) {
    char small[32];
    const char *text;
    Py_ssize_t n;
    char *owned = NULL;
    PyObject *str = NULL;
    if (is_float) {
        /* float.__repr__: shortest round-trip, ".0" added to integral values */
        owned = PyOS_double_to_string(PyFloat_AS_DOUBLE(o), 'r', 0, Py_DTSF_ADD_DOT_0, NULL);
        if (owned == NULL) return -1;
        text = owned;
        n = (Py_ssize_t)strlen(owned);
    } else {
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
        if (v == -1 && PyErr_Occurred()) return -1;
        if (!overflow) {
            n = snprintf(small, sizeof(small), "%lld", v);
            text = small;
        } else {
            str = PyObject_Str(o);
            if (str == NULL) return -1;
            text = PyUnicode_AsUTF8AndSize(str, &n);
            if (text == NULL) {
                Py_DECREF(str);
                return -1;
            }
        }
    }
    int rc = 0;
    if (quoted) rc = buf_putc(b, '"');
    if (rc == 0) rc = buf_put(b, is_float ? "f:" : "i:", 2);
    if (rc == 0) rc = buf_put(b, text, n);
    if (rc == 0 && quoted) rc = buf_putc(b, '"');
    if (owned) PyMem_Free(owned);
    Py_XDECREF(str);
    return rc;
}

typedef struct {
    const char *key;
    Py_ssize_t len;
    PyObject *value;
    PyObject *owner; /* the UTF-8 bytes of a non-ASCII key, or NULL */
} Item;

static int item_cmp(const void *pa, const void *pb) {
    const Item *a = pa, *b = pb;
    Py_ssize_t n = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->key, b->key, n);
    if (c) return c;
    return (a->len > b->len) - (a->len < b->len);
}

static int put_value(Buf *b, PyObject *o, int depth, int exact);

static int put_dict(Buf *b, PyObject *o, int depth, int exact) {
    Py_ssize_t size = PyDict_GET_SIZE(o);
    if (size == 0) return buf_put(b, "{}", 2);
    Item small[16];
    Item *items = small;
    if (size > 16) {
        items = PyMem_Malloc(sizeof(Item) * size);
        if (items == NULL) {
            PyErr_NoMemory();
            return -1;
        }
    }
    int rc = 0;
    Py_ssize_t pos = 0, filled = 0;
    PyObject *key, *value;
    while (PyDict_Next(o, &pos, &key, &value)) {
        if (!PyUnicode_CheckExact(key)) {
            rc = UNSUPPORTED;
            goto done;
        }
        /* JCS orders keys by UTF-16 code units; UTF-8 byte order equals it
           only while every key stays within the BMP. */
        if (!exact && PyUnicode_MAX_CHAR_VALUE(key) > 0xFFFF) {
            rc = UNSUPPORTED;
            goto done;
        }
        Item *item = &items[filled];
        const char *u = utf8_of(key, &item->len, &item->owner);
        if (u == NULL) {
            rc = PyErr_Occurred() ? -1 : UNSUPPORTED;
            goto done;
        }
        item->key = u;
        item->value = value;
        filled++;
    }
    if (size > 1) qsort(items, size, sizeof(Item), item_cmp);
    if ((rc = buf_putc(b, '{')) != 0) goto done;
    for (Py_ssize_t i = 0; i < size; i++) {
        if (i && (rc = buf_putc(b, ',')) != 0) goto done;
        if ((rc = put_escaped(b, items[i].key, items[i].len)) != 0) goto done;
        if ((rc = buf_putc(b, ':')) != 0) goto done;
        /* A borrowed value stays alive: nothing here runs Python code that
           could change the dict. */
        if ((rc = put_value(b, items[i].value, depth + 1, exact)) != 0) goto done;
    }
    rc = buf_putc(b, '}');
done:
    for (Py_ssize_t k = 0; k < filled; k++) Py_XDECREF(items[k].owner);
    if (items != small) PyMem_Free(items);
    return rc;
}

static int put_value(Buf *b, PyObject *o, int depth, int exact) {
    if (depth > MAX_VALUE_DEPTH) return UNSUPPORTED;
    if (PyUnicode_CheckExact(o)) return put_str(b, o);
    if (o == Py_None) return buf_put(b, "null", 4);
    if (o == Py_True) return buf_put(b, "true", 4);
    if (o == Py_False) return buf_put(b, "false", 5);
    if (PyLong_CheckExact(o)) return put_number(b, o, 0, !exact);
    if (PyFloat_CheckExact(o)) return put_number(b, o, 1, !exact);
    if (PyDict_CheckExact(o)) return put_dict(b, o, depth, exact);
    if (PyList_CheckExact(o) || PyTuple_CheckExact(o)) {
        /* In exact mode a tuple and a list differ; in the hash form both are lists. */
        int is_list = PyList_CheckExact(o);
        if (buf_putc(b, exact && !is_list ? '(' : '[') < 0) return -1;
        for (Py_ssize_t i = 0; i < (is_list ? PyList_GET_SIZE(o) : PyTuple_GET_SIZE(o)); i++) {
            if (i && buf_putc(b, ',') < 0) return -1;
            PyObject *item = is_list ? PyList_GET_ITEM(o, i) : PyTuple_GET_ITEM(o, i);
            /* The list is not changed here (no Python code runs), so the item stays alive. */
            int rc = put_value(b, item, depth + 1, exact);
            if (rc) return rc;
        }
        return buf_putc(b, exact && !is_list ? ')' : ']');
    }
    return UNSUPPORTED;
}

/* The written bytes (rc 0), None (UNSUPPORTED) or NULL (an error is set); frees the buffer. */
static PyObject *finish(Buf *b, int rc) {
    PyObject *result = NULL;
    if (rc == 0) {
        result = PyBytes_FromStringAndSize(b->data, b->len);
    } else if (rc == UNSUPPORTED) {
        result = Py_NewRef(Py_None);
    }
    buf_free(b);
    return result;
}

static PyObject *serialize(PyObject *o, int exact) {
    Buf b;
    buf_init(&b);
    int rc = put_value(&b, o, 0, exact);
    return finish(&b, rc);
}

static PyObject *canonical(PyObject *module, PyObject *o) {
    return serialize(o, 0);
}

static PyObject *exact_key(PyObject *module, PyObject *o) {
    return serialize(o, 1);
}

/* canonical() of the evidence record {"case_id", "control", "dimension", "id",
   "included", "label", "reason", "status", "trial"} given its values in that
   (JCS) key order, without building the dict: one per scored row. */
static const char *const EVIDENCE_KEYS[] = {
    "{\"case_id\":", ",\"control\":", ",\"dimension\":", ",\"id\":", ",\"included\":",
    ",\"label\":", ",\"reason\":", ",\"status\":", ",\"trial\":",
};

static PyObject *evidence_canonical(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 9) {
        PyErr_SetString(PyExc_TypeError, "evidence_canonical() takes 9 arguments");
        return NULL;
    }
    Buf b;
    buf_init(&b);
    int rc = 0;
    for (Py_ssize_t i = 0; i < 9 && rc == 0; i++) {
        rc = buf_put(&b, EVIDENCE_KEYS[i], (Py_ssize_t)strlen(EVIDENCE_KEYS[i]));
        if (rc == 0) rc = put_value(&b, args[i], 1, 0);
    }
    if (rc == 0) rc = buf_putc(&b, '}');
    return finish(&b, rc);
}

/* ------------------------------------------------------------------ duplicate keys */

/* JSON text scanning shared by duplicate_key and definition_text. */
static int is_space(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static Py_ssize_t skip_space(const char *s, Py_ssize_t i, Py_ssize_t n) {
    while (i < n && is_space(s[i])) i++;
    return i;
}

/* End of the string whose opening quote is at s[i]: the index after its closing
   quote; *escaped tells whether it holds a backslash. */
static Py_ssize_t skip_string(const char *s, Py_ssize_t i, Py_ssize_t n, int *escaped) {
    for (i++; i < n && s[i] != '"'; i++) {
        if (s[i] == '\\') {
            *escaped = 1;
            i++;
        }
    }
    return i < n ? i + 1 : n + 1;  /* n + 1: the string never ends (not valid JSON) */
}


#define MAX_KEYS_PER_OBJECT 64

typedef struct {
    const char *key;
    Py_ssize_t len;
} Key;

/* Reads `raw` as UTF-8 (the reader has checked the whole file is): a '"' or
   '\\' byte is never part of a multi-byte character there. */
static PyObject *duplicate_key(PyObject *module, PyObject *arg) {
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
    const char *s = view.buf;
    Py_ssize_t n = view.len;
    /* Per open container: where its keys start in `keys` (-1 for an array).
       `keys` holds the keys of every open object on the path from the root. */
    Py_ssize_t frame_start[MAX_DEPTH + 1];
    Key small[64];
    Key *keys = small;
    Py_ssize_t cap = 64, nkeys = 0;
    int depth = -1;
    int expect_key = 0;
    long result = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '"') {
            Py_ssize_t start = i + 1;
            int escaped = 0;
            Py_ssize_t end = skip_string(s, i, n, &escaped);
            if (end > n) {
                result = -1;  /* a string that never ends: not valid JSON, let the exact parser speak */
                break;
            }
            i = end - 1;  /* at the closing quote */
            if (!expect_key) continue;
            expect_key = 0;
            if (escaped) {
                result = -1;  /* "a" and "\u0061" are one key: let the exact parser decide */
                break;
            }
            Py_ssize_t first = frame_start[depth];
            if (nkeys - first >= MAX_KEYS_PER_OBJECT) {
                result = -1;  /* the exact parser is linear in the number of keys; this is not */
                break;
            }
            Py_ssize_t len = i - start;
            for (Py_ssize_t k = first; k < nkeys; k++) {
                if (keys[k].len == len && memcmp(keys[k].key, s + start, len) == 0) {
                    result = 1;
                    break;
                }
            }
            if (result) break;
            if (nkeys == cap) {
                Key *grown = PyMem_Malloc(sizeof(Key) * cap * 2);
                if (grown == NULL) {
                    PyErr_NoMemory();
                    result = -2;
                    break;
                }
                memcpy(grown, keys, sizeof(Key) * nkeys);
                if (keys != small) PyMem_Free(keys);
                keys = grown;
                cap *= 2;
            }
            keys[nkeys].key = s + start;
            keys[nkeys].len = len;
            nkeys++;
        } else if (c == '{' || c == '[') {
            if (depth + 1 >= MAX_DEPTH) {
                result = -1;
                break;
            }
            depth++;
            frame_start[depth] = c == '{' ? nkeys : -1;
            expect_key = c == '{';
        } else if (c == '}' || c == ']') {
            if (depth < 0) break;
            if (frame_start[depth] >= 0) nkeys = frame_start[depth];
            depth--;
            expect_key = 0;
        } else if (c == ',') {
            expect_key = depth >= 0 && frame_start[depth] >= 0;
        }
    }
    if (keys != small) PyMem_Free(keys);
    PyBuffer_Release(&view);
    if (result == -2) return NULL;
    return PyLong_FromLong(result);
}

/* ------------------------------------------------------------------ definition text */

/* For the valid JSON text of one object: "key\0value text\0" for each top-level
   key named in `fields` (a tuple of bytes), in text order; None when the text
   is not an object or a top-level key is escaped (its name is then not what
   the text shows). Equal results mean equal values of those fields. */
static PyObject *definition_text(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2 || !PyTuple_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "definition_text(raw, fields: tuple of bytes)");
        return NULL;
    }
    PyObject *fields = args[1];
    Py_ssize_t nfields = PyTuple_GET_SIZE(fields);
    for (Py_ssize_t f = 0; f < nfields; f++) {
        if (!PyBytes_Check(PyTuple_GET_ITEM(fields, f))) {
            PyErr_SetString(PyExc_TypeError, "definition_text(): fields must be bytes");
            return NULL;
        }
    }
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0) return NULL;
    const char *s = view.buf;
    Py_ssize_t n = view.len;
    Buf b;
    buf_init(&b);
    int rc = UNSUPPORTED;
    Py_ssize_t i = skip_space(s, 0, n);
    if (i >= n || s[i] != '{') goto done;
    i = skip_space(s, i + 1, n);
    if (i < n && s[i] == '}') {
        rc = 0;
        goto done;
    }
    while (i < n && s[i] == '"') {
        int escaped = 0;
        Py_ssize_t key_start = i + 1;
        i = skip_string(s, i, n, &escaped);
        if (escaped || i > n) goto done;
        Py_ssize_t key_len = i - 1 - key_start;
        i = skip_space(s, i, n);
        if (i >= n || s[i] != ':') goto done;
        Py_ssize_t value_start = i = skip_space(s, i + 1, n);
        int depth = 0;
        while (i < n) {
            char c = s[i];
            if (c == '"') {
                i = skip_string(s, i, n, &escaped);
                if (i > n) goto done;
                continue;
            }
            if (c == '{' || c == '[') {
                depth++;
            } else if (c == '}' || c == ']') {
                if (depth == 0) break;
                depth--;
            } else if (c == ',' && depth == 0) {
                break;
            }
            i++;
        }
        Py_ssize_t value_end = i;
        while (value_end > value_start && is_space(s[value_end - 1])) value_end--;
        for (Py_ssize_t f = 0; f < nfields; f++) {
            PyObject *name = PyTuple_GET_ITEM(fields, f);
            if (PyBytes_GET_SIZE(name) == key_len && memcmp(PyBytes_AS_STRING(name), s + key_start, key_len) == 0) {
                if (buf_put(&b, s + key_start, key_len) < 0 || buf_putc(&b, 0) < 0 ||
                    buf_put(&b, s + value_start, value_end - value_start) < 0 || buf_putc(&b, 0) < 0) {
                    rc = -1;
                    goto done;
                }
                break;
            }
        }
        if (i >= n || s[i] == '}') {
            rc = i < n ? 0 : UNSUPPORTED;
            goto done;
        }
        i = skip_space(s, i + 1, n);  /* past the comma */
    }
done:
    PyBuffer_Release(&view);
    return finish(&b, rc);
}

/* ------------------------------------------------------------------ number screen */

/* The Python text_is_clean in one pass: False when the text has NaN, Infinity,
   16 or more digits in a row, or an exponent of 3 or more digits (e000, e+000,
   either case of e); True means no number in it needs the exact checks. */
/* Byte classes for the screen: most bytes are OTHER and cost one table look-up. */
enum { OTHER = 0, DIGIT, LETTER_N, LETTER_I, LETTER_E };
static unsigned char screen_class[256];

static void init_screen_class(void) {
    for (int c = '0'; c <= '9'; c++) screen_class[c] = DIGIT;
    screen_class['N'] = LETTER_N;
    screen_class['I'] = LETTER_I;
    screen_class['e'] = screen_class['E'] = LETTER_E;
}

static int is_digit(unsigned char c) {
    return c >= '0' && c <= '9';
}

static PyObject *text_is_clean(PyObject *module, PyObject *arg) {
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
    const unsigned char *s = view.buf;
    Py_ssize_t n = view.len;
    int clean = 1;
    Py_ssize_t run = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        unsigned char kind = screen_class[s[i]];
        if (kind == OTHER) {
            run = 0;
            continue;
        }
        if (kind == DIGIT) {
            if (++run >= 16) {
                clean = 0;
                break;
            }
            continue;
        }
        run = 0;
        if (kind == LETTER_N) {
            if (i + 2 < n && s[i + 1] == 'a' && s[i + 2] == 'N') clean = 0;
        } else if (kind == LETTER_I) {
            if (i + 7 < n && memcmp(s + i + 1, "nfinity", 7) == 0) clean = 0;
        } else {
            Py_ssize_t j = i + 1;
            if (j < n && s[j] == '+') j++;
            if (j + 2 < n && is_digit(s[j]) && is_digit(s[j + 1]) && is_digit(s[j + 2])) clean = 0;
        }
        if (!clean) break;
    }
    PyBuffer_Release(&view);
    return PyBool_FromLong(clean);
}

/* ------------------------------------------------------------------ SHA-256 of many texts
 * sha256_texts(offsets, data, width, out, hardware): the SHA-256 digest of each of the n texts
 * data[offsets[i]:offsets[i+1]] (an Arrow string column's buffers: n + 1 offsets of `width` bytes)
 * written to out[32 i : 32 i + 32]. Hashes with the CPU's SHA instructions where it has them (and
 * `hardware` is true), else the portable rounds below; the GIL is released while it runs. A test
 * compares both with hashlib. */
#include <stdint.h>
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SK_SHA_NI 1
#include <cpuid.h>
#include <immintrin.h>
#endif

static const uint32_t SHA_K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};
static const uint32_t SHA_H0[8] = {
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

#define ROTR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void sha_blocks_portable(uint32_t h[8], const unsigned char *p, size_t blocks) {
    uint32_t w[64];
    for (; blocks; blocks--, p += 64) {
        for (int t = 0; t < 16; t++)
            w[t] = (uint32_t)p[4 * t] << 24 | (uint32_t)p[4 * t + 1] << 16 | (uint32_t)p[4 * t + 2] << 8 | p[4 * t + 3];
        for (int t = 16; t < 64; t++) {
            uint32_t s0 = ROTR(w[t - 15], 7) ^ ROTR(w[t - 15], 18) ^ (w[t - 15] >> 3);
            uint32_t s1 = ROTR(w[t - 2], 17) ^ ROTR(w[t - 2], 19) ^ (w[t - 2] >> 10);
            w[t] = w[t - 16] + s0 + w[t - 7] + s1;
        }
        uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
        for (int t = 0; t < 64; t++) {
            uint32_t t1 = k + (ROTR(e, 6) ^ ROTR(e, 11) ^ ROTR(e, 25)) + ((e & f) ^ (~e & g)) + SHA_K[t] + w[t];
            uint32_t t2 = (ROTR(a, 2) ^ ROTR(a, 13) ^ ROTR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
            k = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
        }
        h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += k;
    }
}

#ifdef SK_SHA_NI
/* The x86 SHA extensions (Intel's published use of sha256rnds2/msg1/msg2): four rounds per step,
 * the state kept as ABEF and CDGH. */
__attribute__((target("sha,sse4.1,ssse3")))
static void sha_blocks_ni(uint32_t h[8], const unsigned char *p, size_t blocks) {
    const __m128i swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    __m128i tmp = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&h[0]), 0xB1);   /* CDAB */
    __m128i s1 = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&h[4]), 0x1B);    /* EFGH */
    __m128i s0 = _mm_alignr_epi8(tmp, s1, 8);                                           /* ABEF */
    s1 = _mm_blend_epi16(s1, tmp, 0xF0);                                                /* CDGH */
    for (; blocks; blocks--, p += 64) {
        __m128i abef = s0, cdgh = s1, w[4];
        for (int i = 0; i < 16; i++) {
            __m128i msg;
            if (i < 4) {
                w[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * i)), swap);
            } else {
                msg = _mm_add_epi32(_mm_sha256msg1_epu32(w[i & 3], w[(i + 1) & 3]),
                                    _mm_alignr_epi8(w[(i + 3) & 3], w[(i + 2) & 3], 4));
                w[i & 3] = _mm_sha256msg2_epu32(msg, w[(i + 3) & 3]);
            }
            msg = _mm_add_epi32(w[i & 3], _mm_loadu_si128((const __m128i *)&SHA_K[4 * i]));
            s1 = _mm_sha256rnds2_epu32(s1, s0, msg);
            s0 = _mm_sha256rnds2_epu32(s0, s1, _mm_shuffle_epi32(msg, 0x0E));
        }
        s0 = _mm_add_epi32(s0, abef);
        s1 = _mm_add_epi32(s1, cdgh);
    }
    tmp = _mm_shuffle_epi32(s0, 0x1B);          /* FEBA */
    s1 = _mm_shuffle_epi32(s1, 0xB1);           /* DCHG */
    s0 = _mm_blend_epi16(tmp, s1, 0xF0);        /* DCBA */
    s1 = _mm_alignr_epi8(s1, tmp, 8);           /* HGFE */
    _mm_storeu_si128((__m128i *)&h[0], s0);
    _mm_storeu_si128((__m128i *)&h[4], s1);
}

static int cpu_has_sha(void) {
    unsigned int a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_SSE4_1) || !(c & bit_SSSE3)) return 0;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
    return (b >> 29) & 1;  /* CPUID.(EAX=7, ECX=0):EBX.SHA */
}
#endif

typedef void (*sha_blocks_fn)(uint32_t h[8], const unsigned char *p, size_t blocks);
static sha_blocks_fn sha_hardware = NULL;  /* set at import where the CPU has SHA instructions */

static void sha256_one(sha_blocks_fn blocks, const unsigned char *p, size_t n, unsigned char out[32]) {
    uint32_t h[8];
    unsigned char tail[128];
    memcpy(h, SHA_H0, sizeof(h));
    size_t full = n / 64, rest = n % 64;
    if (full) blocks(h, p, full);
    memcpy(tail, p + 64 * full, rest);
    tail[rest] = 0x80;
    size_t last = rest < 56 ? 64 : 128;
    memset(tail + rest + 1, 0, last - rest - 1);
    uint64_t bits = (uint64_t)n * 8;
    for (int i = 0; i < 8; i++) tail[last - 1 - i] = (unsigned char)(bits >> (8 * i));
    blocks(h, tail, last / 64);
    for (int i = 0; i < 8; i++) {
        out[4 * i] = (unsigned char)(h[i] >> 24);
        out[4 * i + 1] = (unsigned char)(h[i] >> 16);
        out[4 * i + 2] = (unsigned char)(h[i] >> 8);
        out[4 * i + 3] = (unsigned char)h[i];
    }
}

/* Offset i of an Arrow offsets buffer of `width` (4 or 8) bytes each, read unaligned. */
static inline int64_t offset_at(const unsigned char *offsets, long width, Py_ssize_t i) {
    if (width == 4) {
        int32_t v;
        memcpy(&v, offsets + 4 * i, 4);
        return v;
    }
    int64_t v;
    memcpy(&v, offsets + 8 * i, 8);
    return v;
}

static PyObject *sha256_texts(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "sha256_texts(offsets, data, width, out, hardware) takes 5 arguments");
        return NULL;
    }
    long width = PyLong_AsLong(args[2]);
    if (width == -1 && PyErr_Occurred()) return NULL;
    if (width != 4 && width != 8) {
        PyErr_SetString(PyExc_ValueError, "sha256_texts: width must be 4 or 8");
        return NULL;
    }
    int hardware = PyObject_IsTrue(args[4]);
    if (hardware < 0) return NULL;
    Py_buffer offsets, data, out;
    if (PyObject_GetBuffer(args[0], &offsets, PyBUF_SIMPLE) < 0) return NULL;
    if (PyObject_GetBuffer(args[1], &data, PyBUF_SIMPLE) < 0) {
        PyBuffer_Release(&offsets);
        return NULL;
    }
    if (PyObject_GetBuffer(args[3], &out, PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&offsets);
        PyBuffer_Release(&data);
        return NULL;
    }
    const char *problem = NULL;
    Py_ssize_t n = offsets.len / width - 1;
    if (offsets.len % width || n < 0) problem = "sha256_texts: offsets must hold n + 1 integers of width bytes";
    else if (out.len != 32 * n) problem = "sha256_texts: out must hold 32 bytes per text";
    const unsigned char *base = (const unsigned char *)data.buf, *ob = (const unsigned char *)offsets.buf;
    unsigned char *dst = (unsigned char *)out.buf;
    /* Every bound is checked before any is used: offsets rise from 0 and stay within data. */
    for (Py_ssize_t i = 0, before = 0; !problem && i <= n; i++) {
        int64_t at = offset_at(ob, width, i);
        if (at < before || at > data.len) problem = "sha256_texts: offsets out of order or beyond the data";
        before = (Py_ssize_t)at;
    }
    if (!problem) {
        sha_blocks_fn blocks = hardware && sha_hardware ? sha_hardware : sha_blocks_portable;
        Py_BEGIN_ALLOW_THREADS
        int64_t a = n ? offset_at(ob, width, 0) : 0;
        for (Py_ssize_t i = 0; i < n; i++) {
            int64_t b = offset_at(ob, width, i + 1);
            sha256_one(blocks, base + a, (size_t)(b - a), dst + 32 * i);
            a = b;
        }
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&offsets);
    PyBuffer_Release(&data);
    PyBuffer_Release(&out);
    if (problem) {
        PyErr_SetString(PyExc_ValueError, problem);
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"canonical", canonical, METH_O,
     "canonical(obj) -> bytes | None: RFC 8785 bytes of obj in the type-tagged hash form (SPEC 10)."},
    {"exact_key", exact_key, METH_O,
     "exact_key(obj) -> bytes | None: an injective text form of obj (1, 1.0, True, '1' differ)."},
    {"evidence_canonical", (PyCFunction)(void (*)(void))evidence_canonical, METH_FASTCALL,
     "evidence_canonical(case_id, control, dimension, id, included, label, reason, status, trial) -> bytes | None."},
    {"definition_text", (PyCFunction)(void (*)(void))definition_text, METH_FASTCALL,
     "definition_text(raw, fields) -> bytes | None: the text of the named top-level fields of a JSON object."},
    {"text_is_clean", text_is_clean, METH_O,
     "text_is_clean(data) -> bool: no NaN, Infinity, 16-digit run or 3-digit exponent in the text."},
    {"duplicate_key", duplicate_key, METH_O,
     "duplicate_key(raw) -> int: 0 no object in the valid JSON text repeats a key, 1 one does, -1 unsure."},
    {"sha256_texts", (PyCFunction)(void (*)(void))sha256_texts, METH_FASTCALL,
     "sha256_texts(offsets, data, width, out, hardware) -> None: SHA-256 of each text of an Arrow string column."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_speedups", "scorekit's per-row integrity work in C (optional).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__speedups(void) {
    init_screen_class();
#ifdef SK_SHA_NI
    if (cpu_has_sha()) sha_hardware = sha_blocks_ni;
#endif
    return PyModule_Create(&module);
}

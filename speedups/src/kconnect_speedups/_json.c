/*
 * kconnect_speedups._json: compiled fast paths of kconnect-converter-json.
 *
 * FlatEncoder writes the JSON text of many Structs of one schema (fields int8..int64,
 * float64, boolean, string; nested structs through a child FlatEncoder; bytes and plain
 * decimals as base64, written here; other values through a Python function giving their
 * text; nulls as null or as a pre-encoded default) directly into bytes, with the text
 * JsonConverter's pure-Python path produces: keys pre-encoded by the caller, strings with
 * orjson's escapes in Jackson's upper-case hex, doubles as Java's Double.toString. On
 * anything unexpected (another class, an int out of the field's range, a null in a
 * required field, NaN or an infinity, a lone surrogate, a function that raises) encode()
 * returns None and the caller takes the pure-Python path, which gives the bytes or the
 * error.
 *
 * decode_schemaless() is the schemaless batch decode: SchemaAndValue(None, loads(data))
 * per (topic, data) item, the null SchemaAndValue for a tombstone; the usual JSON is read
 * by parse_json() (its own parser, below), the rest by loads (orjson.loads).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* Field kinds; the caller's codes. */
enum {
    K_INT8 = 0,
    K_INT16 = 1,
    K_INT32 = 2,
    K_INT64 = 3,
    K_FLOAT64 = 4,
    K_BOOLEAN = 5,
    K_STRING = 6,
    K_STRUCT = 7, /* a nested Struct, written by the child FlatEncoder in extras */
    K_CALL = 8,   /* extras holds (class, fn): a value of exactly that class is written
                     as the JSON string fn(value) returns (base64 of bytes, decimals) */
    K_BYTES = 9,  /* a bytes value, written as its base64 text */
    K_DECIMAL = 10, /* extras holds (class, scale, fn): a value of exactly that class whose
                       text is plain digits at that scale (up to 18 of them) is written as
                       the base64 of its unscaled two's complement bytes, as Java's
                       BigInteger.toByteArray gives them; any other as fn(value) */
    K_NKINDS = 11
};

/* ---------------------------------------------------------------------------------- */
/* Output buffer                                                                        */

typedef struct {
    char *data;
    Py_ssize_t len;
    Py_ssize_t cap;
} Buf;

static int
buf_reserve(Buf *b, Py_ssize_t extra)
{
    if (b->len + extra <= b->cap) {
        return 0;
    }
    Py_ssize_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra) {
        if (cap > PY_SSIZE_T_MAX / 2) {
            PyErr_NoMemory();
            return -1;
        }
        cap *= 2;
    }
    char *data = PyMem_Realloc(b->data, (size_t)cap);
    if (data == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    b->data = data;
    b->cap = cap;
    return 0;
}

static inline void
buf_put(Buf *b, const char *s, Py_ssize_t n)
{
    memcpy(b->data + b->len, s, (size_t)n);
    b->len += n;
}

/* ---------------------------------------------------------------------------------- */
/* Integers                                                                             */

/* Writes v in decimal at b (room for 20 bytes reserved). */
static void
put_int(Buf *b, long long v)
{
    char tmp[24];
    int i = 24;
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    do {
        tmp[--i] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    if (v < 0) {
        tmp[--i] = '-';
    }
    buf_put(b, tmp + i, 24 - i);
}

/* ---------------------------------------------------------------------------------- */
/* Doubles, as Java's Double.toString                                                   */

static const double POW10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                               1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                               1e16, 1e17};

/*
 * The shortest round-trip text of a finite v with 1e-3 <= |v| < 1e7 (what repr writes),
 * without dtoa, when it can be proven: for the smallest k such that c = round(v * 10^k)
 * reads back as v (c / 10^k == v; both operands exact, so the division rounds like
 * strtod), as long as 10^k * ulp(v) <= 1/4. Under that bound at most one k-digit decimal
 * reads back as v, so it is repr's choice at its digit count, and the rounding error of
 * v * 10^k cannot move round() off it; and no smaller k had a candidate, by the same
 * argument. Returns the number of bytes written to out (room for 32), or 0: use repr.
 */
static int write_point_decimal(double v, unsigned long long u, int k, char *out);
static int exact_short_double(double v, char *out);

static int
short_double(double v, char *out)
{
    double a = fabs(v);
    int e;
    frexp(a, &e);
    double ulp = ldexp(1.0, e - 53);
    for (int k = 0; k < 18; k++) {
        double scale = POW10[k];
        if (scale * ulp > 0.25) {
            return exact_short_double(v, out);
        }
        double m = a * scale;
        if (m >= 9007199254740992.0) { /* 2^53: c no longer exact */
            return exact_short_double(v, out);
        }
        double c = nearbyint(m);
        if (c / scale != a) {
            continue;
        }
        return write_point_decimal(v, (unsigned long long)c, k, out);
    }
    return exact_short_double(v, out);
}

#if defined(__SIZEOF_INT128__)
/*
 * The shortest round-trip text of a finite v with 1e-3 <= |v| < 1e7 (repr's, dtoa mode 0)
 * in exact integer arithmetic, for the doubles short_double's test cannot settle (about a
 * third of "x.99"-style sums carry 17 digits). With v = m * 2^e, in units of 2^(e-2) v is
 * 4m and the doubles reading back as v span [4m - 2, 4m + 2] (the lower half-gap is 1 when
 * m is the smallest mantissa of its binade), ends included when m is even (strtod rounds
 * halfway cases to even). For k = 0, 1, ... the k-digit decimals d / 10^k inside that span
 * are the integers in [lo * 10^k, hi * 10^k] / 2^s, s = 2 - e (31..64 in this range; the
 * products stay below 2^122). The first k with one wins; of several, the one nearest v
 * (ties to even), as dtoa. Returns the length written, or 0 (use repr).
 */
static int
exact_short_double(double v, char *out)
{
    double a = fabs(v);
    if (!(a >= 1e-3 && a < 1e7)) {
        return 0;
    }
    int e2;
    double f = frexp(a, &e2); /* a = f * 2^e2, 0.5 <= f < 1 */
    unsigned long long m = (unsigned long long)ldexp(f, 53);
    int s = 2 - (e2 - 53);
    if (s < 2 || s > 100) {
        return 0;
    }
    typedef unsigned __int128 u128;
    u128 v4 = (u128)m << 2;
    u128 lo4 = v4 - (m == (1ULL << 52) ? 1 : 2);
    u128 hi4 = v4 + 2;
    int even = (m & 1) == 0;
    u128 one = (u128)1 << s;
    u128 half = one >> 1;
    u128 p10 = 1;
    for (int k = 0; k <= 20; k++, p10 *= 10) {
        u128 lo = lo4 * p10;
        u128 hi = hi4 * p10;
        u128 dmin = (lo + one - 1) >> s;
        if (!even && (dmin << s) == lo) {
            dmin++;
        }
        u128 dmax = hi >> s;
        if (!even && (dmax << s) == hi) {
            dmax--; /* hi > 0, so a multiple of 2^s here is at least 2^s */
        }
        if (dmin > dmax) {
            continue;
        }
        u128 x = v4 * p10;
        u128 d = x >> s;
        u128 rem = x - (d << s);
        if (rem > half || (rem == half && (d & 1))) {
            d++;
        }
        if (d < dmin) {
            d = dmin;
        }
        else if (d > dmax) {
            d = dmax;
        }
        if (d >= (u128)10000000000000000000ULL) {
            return 0;
        }
        return write_point_decimal(v, (unsigned long long)d, k, out);
    }
    return 0;
}
#else
static int
exact_short_double(double v, char *out)
{
    (void)v;
    (void)out;
    return 0;
}
#endif

/* v's sign, then u with a point k digits from the right ("u.0" when k is 0); k <= 20. */
static int
write_point_decimal(double v, unsigned long long u, int k, char *out)
{
    char digits[24];
    int n = 0;
    do {
        digits[n++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    /* digits holds u reversed; pad so there is a digit before the point. */
    while (n <= k) {
        digits[n++] = '0';
    }
    int pos = 0;
    if (v < 0) {
        out[pos++] = '-';
    }
    for (int i = n - 1; i >= k; i--) {
        out[pos++] = digits[i];
    }
    out[pos++] = '.';
    if (k == 0) {
        out[pos++] = '0';
    }
    else {
        for (int i = k - 1; i >= 0; i--) {
            out[pos++] = digits[i];
        }
    }
    return pos;
}

/*
 * v (finite) as Java writes it, into out (room for 40 bytes). Inside [1e-3, 1e7) and at
 * zero this is repr's text; outside it Java's "d.dddEn" with repr's digits.
 * Returns the length, or -1 with an exception set.
 */
static int
java_double(double v, char *out)
{
    double a = fabs(v);
    if (a == 0.0) {
        if (signbit(v)) {
            memcpy(out, "-0.0", 4);
            return 4;
        }
        memcpy(out, "0.0", 3);
        return 3;
    }
    int inside = a >= 1e-3 && a < 1e7;
    if (inside) {
        int n = short_double(v, out);
        if (n > 0) {
            return n;
        }
    }
    char *r = PyOS_double_to_string(v, 'r', 0, Py_DTSF_ADD_DOT_0, NULL);
    if (r == NULL) {
        return -1;
    }
    size_t rlen = strlen(r);
    if (inside) {
        /* repr writes plain notation for 1e-4 <= |v| < 1e16. */
        if (rlen > 39) {
            PyMem_Free(r);
            PyErr_SetString(PyExc_ValueError, "unexpected repr of a double");
            return -1;
        }
        memcpy(out, r, rlen);
        PyMem_Free(r);
        return (int)rlen;
    }
    /* Collect the significant digits and the decimal exponent of the first one. */
    char digits[40];
    int nd = 0;
    int point = -1;   /* digits before the point, once seen */
    int exp10 = 0;    /* the "e" part */
    int leading = 1;  /* still skipping leading zeros */
    int skipped = 0;  /* leading zeros after the point */
    const char *p = r;
    if (*p == '-') {
        p++;
    }
    for (; *p; p++) {
        char ch = *p;
        if (ch == '.') {
            point = nd;
        }
        else if (ch == 'e' || ch == 'E') {
            exp10 = atoi(p + 1);
            break;
        }
        else if (ch >= '0' && ch <= '9') {
            if (leading && ch == '0') {
                if (point >= 0) {
                    skipped++;
                }
                continue;
            }
            leading = 0;
            if (nd < 39) {
                digits[nd++] = ch;
            }
        }
    }
    PyMem_Free(r);
    if (nd == 0) {
        PyErr_SetString(PyExc_ValueError, "unexpected repr of a double");
        return -1;
    }
    if (point < 0) {
        point = nd;
    }
    /* value = 0.d1d2... * 10^(point - skipped + exp10); Java's exponent is one less. */
    int power = point - skipped + exp10 - 1;
    while (nd > 1 && digits[nd - 1] == '0') {
        nd--;
    }
    if (nd == 1 && a < DBL_MIN) {
        /* Java writes at least two digits, and where one would read back it takes the
         * two-digit decimal closest to the value if that reads back too. Only subnormals
         * are coarse enough for it to differ from "d.0" (4.9E-324, not 5.0E-324). */
        char *two = PyOS_double_to_string(a, 'e', 1, 0, NULL);
        if (two == NULL) {
            return -1;
        }
        double back = PyOS_string_to_double(two, NULL, NULL);
        if (back == -1.0 && PyErr_Occurred()) {
            PyMem_Free(two);
            return -1;
        }
        /* two is "d.de-NNN". */
        if (back == a && two[0] != '0') {
            digits[0] = two[0];
            digits[1] = two[2];
            nd = digits[1] == '0' ? 1 : 2;
            power = atoi(two + 4);
        }
        PyMem_Free(two);
    }
    int pos = 0;
    if (v < 0) {
        out[pos++] = '-';
    }
    out[pos++] = digits[0];
    out[pos++] = '.';
    if (nd == 1) {
        out[pos++] = '0';
    }
    else {
        memcpy(out + pos, digits + 1, (size_t)(nd - 1));
        pos += nd - 1;
    }
    pos += snprintf(out + pos, 8, "E%d", power);
    return pos;
}

/* ---------------------------------------------------------------------------------- */
/* Strings, escaped as orjson does with Jackson's upper-case hex                        */

/* 0: copy; 1: \uXXXX; other: the letter after the backslash. */
static char ESCAPE[128];

static void
init_escapes(void)
{
    for (int c = 0; c < 0x20; c++) {
        ESCAPE[c] = 1;
    }
    ESCAPE['\b'] = 'b';
    ESCAPE['\t'] = 't';
    ESCAPE['\n'] = 'n';
    ESCAPE['\f'] = 'f';
    ESCAPE['\r'] = 'r';
    ESCAPE['"'] = '"';
    ESCAPE['\\'] = '\\';
}

static const char HEX[] = "0123456789ABCDEF";

static inline void
put_ascii_char(Buf *b, unsigned int c)
{
    char e = ESCAPE[c];
    char *o = b->data + b->len;
    if (e == 0) {
        o[0] = (char)c;
        b->len += 1;
    }
    else if (e == 1) {
        o[0] = '\\';
        o[1] = 'u';
        o[2] = '0';
        o[3] = '0';
        o[4] = HEX[c >> 4];
        o[5] = HEX[c & 15];
        b->len += 6;
    }
    else {
        o[0] = '\\';
        o[1] = e;
        b->len += 2;
    }
}

/* Writes s as a JSON string. Returns 0, 1 for a lone surrogate (no JSON form), or -1. */
static const char B64_ALPHABET[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Appends "<base64 of s>" (standard alphabet, padded, no newline) to b. */
static int
put_base64(Buf *b, const unsigned char *s, Py_ssize_t n)
{
    if (n > (PY_SSIZE_T_MAX - 8) / 4 * 3 || buf_reserve(b, 4 * ((n + 2) / 3) + 2) < 0) {
        if (!PyErr_Occurred()) {
            PyErr_NoMemory();
        }
        return -1;
    }
    char *o = b->data + b->len;
    *o++ = '"';
    Py_ssize_t i = 0;
    for (; i + 2 < n; i += 3) {
        uint32_t v = ((uint32_t)s[i] << 16) | ((uint32_t)s[i + 1] << 8) | s[i + 2];
        o[0] = B64_ALPHABET[v >> 18];
        o[1] = B64_ALPHABET[(v >> 12) & 63];
        o[2] = B64_ALPHABET[(v >> 6) & 63];
        o[3] = B64_ALPHABET[v & 63];
        o += 4;
    }
    if (n - i == 1) {
        uint32_t v = (uint32_t)s[i] << 16;
        o[0] = B64_ALPHABET[v >> 18];
        o[1] = B64_ALPHABET[(v >> 12) & 63];
        o[2] = '=';
        o[3] = '=';
        o += 4;
    }
    else if (n - i == 2) {
        uint32_t v = ((uint32_t)s[i] << 16) | ((uint32_t)s[i + 1] << 8);
        o[0] = B64_ALPHABET[v >> 18];
        o[1] = B64_ALPHABET[(v >> 12) & 63];
        o[2] = B64_ALPHABET[(v >> 6) & 63];
        o[3] = '=';
        o += 4;
    }
    *o++ = '"';
    b->len = o - b->data;
    return 0;
}

/* The unscaled integer of a decimal's text at a scale: "-123.45" at scale 2 is -12345.
 * Only an optional '-', digits, and (scale > 0) a '.' followed by exactly `scale` digits,
 * 1 to 18 digits in all; 0 for any other text (the caller's Python function decides). */
static int
decimal_unscaled(const char *t, Py_ssize_t len, long scale, long long *out)
{
    const char *p = t, *end = t + len;
    int neg = 0;
    if (p < end && *p == '-') {
        neg = 1;
        p++;
    }
    const char *point = end;
    if (scale > 0) {
        if (scale >= len) {
            return 0;
        }
        point = end - scale - 1;
        if (point < p || *point != '.') {
            return 0;
        }
    }
    else if (scale < 0) {
        return 0;
    }
    unsigned long long u = 0;
    int digits = 0;
    for (const char *q = p; q < end; q++) {
        if (q == point) {
            continue;
        }
        if (*q < '0' || *q > '9' || ++digits > 18) {
            return 0;
        }
        u = u * 10 + (unsigned long long)(*q - '0');
    }
    if (digits == 0) {
        return 0;
    }
    *out = neg ? -(long long)u : (long long)u;
    return 1;
}

/* Appends the base64 of x's minimal big-endian two's complement bytes (1 to 8). */
static int
put_unscaled(Buf *b, long long x)
{
    unsigned long long mag = x < 0 ? (unsigned long long)(-(x + 1)) : (unsigned long long)x;
    int bits = 0;
    while (mag) {
        bits++;
        mag >>= 1;
    }
    int size = bits / 8 + 1;
    unsigned char bytes[8];
    unsigned long long ux = (unsigned long long)x;
    for (int k = 0; k < size; k++) {
        bytes[size - 1 - k] = (unsigned char)(ux >> (8 * k));
    }
    return put_base64(b, bytes, size);
}


static int
put_string(Buf *b, PyObject *s)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    if (buf_reserve(b, n * 6 + 2) < 0) {
        return -1;
    }
    b->data[b->len++] = '"';
    int kind = PyUnicode_KIND(s);
    const void *data = PyUnicode_DATA(s);
    if (kind == PyUnicode_1BYTE_KIND) {
        const unsigned char *u = (const unsigned char *)data;
        if (PyUnicode_IS_ASCII(s)) {
            /* Copy runs that need no escape in one go. */
            Py_ssize_t start = 0;
            for (Py_ssize_t i = 0; i < n; i++) {
                if (ESCAPE[u[i]]) {
                    buf_put(b, (const char *)u + start, i - start);
                    put_ascii_char(b, u[i]);
                    start = i + 1;
                }
            }
            buf_put(b, (const char *)u + start, n - start);
        }
        else {
            for (Py_ssize_t i = 0; i < n; i++) {
                unsigned int c = u[i];
                if (c < 0x80) {
                    put_ascii_char(b, c);
                }
                else {
                    char *o = b->data + b->len;
                    o[0] = (char)(0xC0 | (c >> 6));
                    o[1] = (char)(0x80 | (c & 0x3F));
                    b->len += 2;
                }
            }
        }
    }
    else {
        for (Py_ssize_t i = 0; i < n; i++) {
            Py_UCS4 c = PyUnicode_READ(kind, data, i);
            char *o = b->data + b->len;
            if (c < 0x80) {
                put_ascii_char(b, c);
            }
            else if (c < 0x800) {
                o[0] = (char)(0xC0 | (c >> 6));
                o[1] = (char)(0x80 | (c & 0x3F));
                b->len += 2;
            }
            else if (c < 0x10000) {
                if (c >= 0xD800 && c <= 0xDFFF) {
                    return 1;
                }
                o[0] = (char)(0xE0 | (c >> 12));
                o[1] = (char)(0x80 | ((c >> 6) & 0x3F));
                o[2] = (char)(0x80 | (c & 0x3F));
                b->len += 3;
            }
            else {
                o[0] = (char)(0xF0 | (c >> 18));
                o[1] = (char)(0x80 | ((c >> 12) & 0x3F));
                o[2] = (char)(0x80 | ((c >> 6) & 0x3F));
                o[3] = (char)(0x80 | (c & 0x3F));
                b->len += 4;
            }
        }
    }
    b->data[b->len++] = '"';
    return 0;
}

/* ---------------------------------------------------------------------------------- */
/* FlatEncoder                                                                          */

static PyObject *STR_SCHEMA;  /* "schema" */
static PyObject *STR_VALUES;  /* "_values" */

typedef struct {
    PyObject_HEAD
    PyObject *schema;
    PyObject *struct_type;      /* the Struct class: items must be of exactly this class */
    Py_ssize_t schema_offset;   /* its "schema" and "_values" slots, or -1: use getattr */
    Py_ssize_t values_offset;
    Py_ssize_t width;
    PyObject **keys;      /* bytes: '{"name":' for the first field, ',"name":' after */
    unsigned char *kinds;
    unsigned char *nullable;
    PyObject **defaults;  /* bytes written for a null (the field's default), or NULL */
    PyObject **extras;    /* per kind: the child encoder, (class, fn), or NULL */
    Py_ssize_t keys_len;  /* total length of the keys */
    int ready;            /* __init__ completed */
} FlatEncoder;

static PyTypeObject FlatEncoderType;

/* The offset of the __slots__ member ``name`` of tp (an object slot), or -1. */
static Py_ssize_t
slot_offset(PyTypeObject *tp, PyObject *name)
{
    PyObject *descr = _PyType_Lookup(tp, name); /* borrowed */
    if (descr == NULL || Py_TYPE(descr) != &PyMemberDescr_Type) {
        return -1;
    }
    PyMemberDef *member = ((PyMemberDescrObject *)descr)->d_member;
    if (member->type != T_OBJECT_EX || (member->flags & READONLY)) {
        return -1;
    }
    return member->offset;
}

static void
FlatEncoder_dealloc(FlatEncoder *self)
{
    if (self->keys != NULL) {
        for (Py_ssize_t i = 0; i < self->width; i++) {
            Py_XDECREF(self->keys[i]);
        }
        PyMem_Free(self->keys);
    }
    if (self->defaults != NULL) {
        for (Py_ssize_t i = 0; i < self->width; i++) {
            Py_XDECREF(self->defaults[i]);
        }
        PyMem_Free(self->defaults);
    }
    if (self->extras != NULL) {
        for (Py_ssize_t i = 0; i < self->width; i++) {
            Py_XDECREF(self->extras[i]);
        }
        PyMem_Free(self->extras);
    }
    PyMem_Free(self->kinds);
    PyMem_Free(self->nullable);
    Py_XDECREF(self->schema);
    Py_XDECREF(self->struct_type);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int
FlatEncoder_init(FlatEncoder *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"schema", "keys",     "kinds", "nullable", "struct_type",
                             "defaults", "extras", NULL};
    PyObject *schema, *keys, *kinds, *nullable, *struct_type;
    PyObject *defaults = Py_None, *extras = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO!O!O!O!|OO:FlatEncoder", kwlist, &schema,
                                     &PyTuple_Type, &keys, &PyTuple_Type, &kinds,
                                     &PyTuple_Type, &nullable, &PyType_Type, &struct_type,
                                     &defaults, &extras)) {
        return -1;
    }
    if (self->keys != NULL) {
        PyErr_SetString(PyExc_TypeError, "FlatEncoder is already initialised");
        return -1;
    }
    Py_ssize_t width = PyTuple_GET_SIZE(keys);
    if (width == 0 || PyTuple_GET_SIZE(kinds) != width ||
        PyTuple_GET_SIZE(nullable) != width) {
        PyErr_SetString(PyExc_ValueError,
                        "keys, kinds and nullable must be non-empty and of one length");
        return -1;
    }
    if ((defaults != Py_None &&
         (!PyTuple_Check(defaults) || PyTuple_GET_SIZE(defaults) != width)) ||
        (extras != Py_None && (!PyTuple_Check(extras) || PyTuple_GET_SIZE(extras) != width))) {
        PyErr_SetString(PyExc_ValueError, "defaults and extras must be tuples like keys");
        return -1;
    }
    self->defaults = PyMem_Calloc((size_t)width, sizeof(PyObject *));
    self->extras = PyMem_Calloc((size_t)width, sizeof(PyObject *));
    if (self->defaults == NULL || self->extras == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    self->keys = PyMem_Calloc((size_t)width, sizeof(PyObject *));
    self->kinds = PyMem_Malloc((size_t)width);
    self->nullable = PyMem_Malloc((size_t)width);
    if (self->keys == NULL || self->kinds == NULL || self->nullable == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    self->width = width;
    self->keys_len = 0;
    for (Py_ssize_t i = 0; i < width; i++) {
        PyObject *key = PyTuple_GET_ITEM(keys, i);
        if (!PyBytes_CheckExact(key)) {
            PyErr_SetString(PyExc_TypeError, "keys must be bytes");
            return -1;
        }
        Py_INCREF(key);
        self->keys[i] = key;
        self->keys_len += PyBytes_GET_SIZE(key);
        long kind = PyLong_AsLong(PyTuple_GET_ITEM(kinds, i));
        if (kind == -1 && PyErr_Occurred()) {
            return -1;
        }
        if (kind < 0 || kind >= K_NKINDS) {
            PyErr_Format(PyExc_ValueError, "unknown field kind %ld", kind);
            return -1;
        }
        self->kinds[i] = (unsigned char)kind;
        if (defaults != Py_None && PyTuple_GET_ITEM(defaults, i) != Py_None) {
            PyObject *d = PyTuple_GET_ITEM(defaults, i);
            if (!PyBytes_CheckExact(d)) {
                PyErr_SetString(PyExc_TypeError, "defaults must be bytes or None");
                return -1;
            }
            Py_INCREF(d);
            self->defaults[i] = d;
        }
        PyObject *extra = extras == Py_None ? Py_None : PyTuple_GET_ITEM(extras, i);
        if (kind == K_STRUCT) {
            if (!PyObject_TypeCheck(extra, &FlatEncoderType) || !((FlatEncoder *)extra)->ready) {
                PyErr_SetString(PyExc_TypeError, "a struct field needs its FlatEncoder");
                return -1;
            }
        }
        else if (kind == K_CALL) {
            if (!PyTuple_Check(extra) || PyTuple_GET_SIZE(extra) != 2 ||
                !PyType_Check(PyTuple_GET_ITEM(extra, 0)) ||
                !PyCallable_Check(PyTuple_GET_ITEM(extra, 1))) {
                PyErr_SetString(PyExc_TypeError, "a call field needs (class, function)");
                return -1;
            }
        }
        else if (kind == K_DECIMAL) {
            if (!PyTuple_Check(extra) || PyTuple_GET_SIZE(extra) != 3 ||
                !PyType_Check(PyTuple_GET_ITEM(extra, 0)) ||
                !PyLong_CheckExact(PyTuple_GET_ITEM(extra, 1)) ||
                !PyCallable_Check(PyTuple_GET_ITEM(extra, 2))) {
                PyErr_SetString(PyExc_TypeError,
                                "a decimal field needs (class, scale, function)");
                return -1;
            }
        }
        else {
            extra = NULL;
        }
        if (extra != NULL) {
            Py_INCREF(extra);
            self->extras[i] = extra;
        }
        int truth = PyObject_IsTrue(PyTuple_GET_ITEM(nullable, i));
        if (truth < 0) {
            return -1;
        }
        self->nullable[i] = (unsigned char)truth;
    }
    Py_INCREF(schema);
    Py_XSETREF(self->schema, schema);
    Py_INCREF(struct_type);
    Py_XSETREF(self->struct_type, struct_type);
    self->schema_offset = slot_offset((PyTypeObject *)struct_type, STR_SCHEMA);
    self->values_offset = slot_offset((PyTypeObject *)struct_type, STR_VALUES);
    if (self->schema_offset < 0 || self->values_offset < 0) {
        if (PyErr_Occurred()) {
            return -1;
        }
        self->schema_offset = self->values_offset = -1;
    }
    self->ready = 1;
    return 0;
}

/* Appends fn(v), which must return a str, as a JSON string. 0, 1 for "not this path"
 * (fn raised: the Python path raises it again, naming the record; or not a str), or -1. */
static int
put_call(Buf *b, PyObject *fn, PyObject *v)
{
    Py_INCREF(v); /* fn runs Python code, which could drop the caller's reference */
    PyObject *text = PyObject_CallOneArg(fn, v);
    Py_DECREF(v);
    if (text == NULL) {
        PyErr_Clear();
        return 1;
    }
    int s = PyUnicode_CheckExact(text) ? put_string(b, text) : 1;
    Py_DECREF(text);
    return s;
}

static const long long INT_LO[] = {-128LL, -32768LL, -2147483648LL, LLONG_MIN};
static const long long INT_HI[] = {127LL, 32767LL, 2147483647LL, LLONG_MAX};

/* Appends one Struct's JSON object to b. Returns 0, 1 for "not this path", or -1. */
static int
encode_one(FlatEncoder *self, PyObject *st, Buf *b)
{
    PyObject *values;
    if (Py_TYPE(st) != (PyTypeObject *)self->struct_type) {
        return 1;
    }
    if (self->schema_offset >= 0) {
        /* The Struct's own slots, read as its member descriptors would. */
        PyObject *schema = *(PyObject **)((char *)st + self->schema_offset);
        if (schema != self->schema) {
            return 1;
        }
        values = *(PyObject **)((char *)st + self->values_offset);
        if (values == NULL) {
            return 1;
        }
        Py_INCREF(values);
    }
    else {
        PyObject *schema = PyObject_GetAttr(st, STR_SCHEMA);
        if (schema == NULL) {
            PyErr_Clear();
            return 1;
        }
        Py_DECREF(schema); /* only its identity is compared; the Struct keeps it alive */
        if (schema != self->schema) {
            return 1;
        }
        values = PyObject_GetAttr(st, STR_VALUES);
        if (values == NULL) {
            PyErr_Clear();
            return 1;
        }
    }
    int rc = 1;
    if (!PyList_CheckExact(values) || PyList_GET_SIZE(values) != self->width) {
        goto done;
    }
    if (buf_reserve(b, self->keys_len + 1) < 0) {
        rc = -1;
        goto done;
    }
    for (Py_ssize_t i = 0; i < self->width; i++) {
        /* Only a K_CALL or K_DECIMAL function runs Python code, which could change the
         * list: its size is checked again, and the value held while it is written. */
        if (PyList_GET_SIZE(values) != self->width) {
            goto done;
        }
        PyObject *v = PyList_GET_ITEM(values, i);
        PyObject *key = self->keys[i];
        if (buf_reserve(b, PyBytes_GET_SIZE(key) + 48) < 0) {
            rc = -1;
            goto done;
        }
        buf_put(b, PyBytes_AS_STRING(key), PyBytes_GET_SIZE(key));
        if (v == Py_None) {
            PyObject *d = self->defaults[i];
            if (d != NULL) {
                if (buf_reserve(b, PyBytes_GET_SIZE(d)) < 0) {
                    rc = -1;
                    goto done;
                }
                buf_put(b, PyBytes_AS_STRING(d), PyBytes_GET_SIZE(d));
                continue;
            }
            if (!self->nullable[i]) {
                goto done;
            }
            buf_put(b, "null", 4);
            continue;
        }
        int kind = self->kinds[i];
        switch (kind) {
        case K_INT8:
        case K_INT16:
        case K_INT32:
        case K_INT64: {
            if (!PyLong_CheckExact(v)) {
                goto done;
            }
            int overflow;
            long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
            if (overflow || (x == -1 && PyErr_Occurred())) {
                PyErr_Clear();
                goto done;
            }
            if (x < INT_LO[kind] || x > INT_HI[kind]) {
                goto done;
            }
            put_int(b, x);
            break;
        }
        case K_FLOAT64: {
            if (!PyFloat_CheckExact(v)) {
                goto done;
            }
            double d = PyFloat_AS_DOUBLE(v);
            if (!isfinite(d)) {
                goto done;
            }
            int n = java_double(d, b->data + b->len);
            if (n < 0) {
                rc = -1;
                goto done;
            }
            b->len += n;
            break;
        }
        case K_BOOLEAN:
            if (v == Py_True) {
                buf_put(b, "true", 4);
            }
            else if (v == Py_False) {
                buf_put(b, "false", 5);
            }
            else {
                goto done;
            }
            break;
        case K_STRING: {
            if (!PyUnicode_CheckExact(v)) {
                goto done;
            }
            int s = put_string(b, v);
            if (s != 0) {
                rc = s;
                goto done;
            }
            break;
        }
        case K_STRUCT: {
            Py_INCREF(v);
            int s = encode_one((FlatEncoder *)self->extras[i], v, b);
            Py_DECREF(v);
            if (s != 0) {
                rc = s;
                goto done;
            }
            break;
        }
        case K_CALL: {
            PyObject *extra = self->extras[i];
            if (Py_TYPE(v) != (PyTypeObject *)PyTuple_GET_ITEM(extra, 0)) {
                goto done;
            }
            int s = put_call(b, PyTuple_GET_ITEM(extra, 1), v);
            if (s != 0) {
                rc = s;
                goto done;
            }
            break;
        }
        case K_BYTES:
            if (!PyBytes_CheckExact(v)) {
                goto done;
            }
            if (put_base64(b, (const unsigned char *)PyBytes_AS_STRING(v),
                           PyBytes_GET_SIZE(v)) < 0) {
                rc = -1;
                goto done;
            }
            break;
        case K_DECIMAL: {
            PyObject *extra = self->extras[i];
            if (Py_TYPE(v) != (PyTypeObject *)PyTuple_GET_ITEM(extra, 0)) {
                goto done;
            }
            Py_INCREF(v);
            PyObject *text = PyObject_Str(v);
            Py_DECREF(v);
            if (text == NULL) {
                PyErr_Clear();
                goto done;
            }
            Py_ssize_t tlen;
            const char *t = PyUnicode_AsUTF8AndSize(text, &tlen);
            long long x;
            int plain = t != NULL &&
                        decimal_unscaled(t, tlen,
                                         PyLong_AsLong(PyTuple_GET_ITEM(extra, 1)), &x);
            Py_DECREF(text);
            if (PyErr_Occurred()) {
                PyErr_Clear();
                goto done;
            }
            if (plain) {
                if (put_unscaled(b, x) < 0) {
                    rc = -1;
                    goto done;
                }
                break;
            }
            /* Scientific notation, NaN, more digits: the Python function's text. */
            int s = put_call(b, PyTuple_GET_ITEM(extra, 2), v);
            if (s != 0) {
                rc = s;
                goto done;
            }
            break;
        }
        default:
            goto done;
        }
    }
    if (buf_reserve(b, 1) < 0) {
        rc = -1;
        goto done;
    }
    b->data[b->len++] = '}';
    rc = 0;
done:
    Py_DECREF(values);
    return rc;
}

/* encode() and encode_items(): items are Structs, or (topic, schema, Struct) tuples. */
static PyObject *
encode_batch(FlatEncoder *self, PyObject *const *args, Py_ssize_t nargs, int triples)
{
    if (nargs < 1 || nargs > 2) {
        PyErr_SetString(PyExc_TypeError, "encode(items, prefix=None)");
        return NULL;
    }
    if (!self->ready) {
        PyErr_SetString(PyExc_TypeError, "FlatEncoder is not initialised");
        return NULL;
    }
    PyObject *prefix = nargs > 1 ? args[1] : Py_None;
    const char *pre = NULL;
    Py_ssize_t pre_len = 0;
    if (prefix != Py_None) {
        if (!PyBytes_CheckExact(prefix)) {
            PyErr_SetString(PyExc_TypeError, "prefix must be bytes or None");
            return NULL;
        }
        pre = PyBytes_AS_STRING(prefix);
        pre_len = PyBytes_GET_SIZE(prefix);
    }
    PyObject *seq = PySequence_Fast(args[0], "items must be a sequence");
    if (seq == NULL) {
        return NULL;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject *out = PyList_New(n);
    if (out == NULL) {
        Py_DECREF(seq);
        return NULL;
    }
    Buf b = {NULL, 0, 0};
    int rc = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        b.len = 0;
        /* seq is a tuple or a list we hold; a K_CALL function could shrink a list. */
        if (i >= PySequence_Fast_GET_SIZE(seq)) {
            rc = 1;
            break;
        }
        PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
        Py_INCREF(item); /* a K_CALL function may run Python code */
        PyObject *st = item;
        if (triples) {
            if (PyTuple_CheckExact(item) && PyTuple_GET_SIZE(item) == 3 &&
                PyTuple_GET_ITEM(item, 1) == Py_None && PyTuple_GET_ITEM(item, 2) == Py_None) {
                /* A tombstone: no schema, no value, no bytes. */
                Py_DECREF(item);
                Py_INCREF(Py_None);
                PyList_SET_ITEM(out, i, Py_None);
                continue;
            }
            if (!PyTuple_CheckExact(item) || PyTuple_GET_SIZE(item) != 3 ||
                PyTuple_GET_ITEM(item, 1) != self->schema) {
                Py_DECREF(item);
                rc = 1;
                break;
            }
            st = PyTuple_GET_ITEM(item, 2);
        }
        rc = encode_one(self, st, &b);
        Py_DECREF(item);
        if (rc != 0) {
            break;
        }
        PyObject *bytes;
        if (pre == NULL) {
            bytes = PyBytes_FromStringAndSize(b.data, b.len);
        }
        else {
            bytes = PyBytes_FromStringAndSize(NULL, pre_len + b.len + 1);
            if (bytes != NULL) {
                char *o = PyBytes_AS_STRING(bytes);
                memcpy(o, pre, (size_t)pre_len);
                memcpy(o + pre_len, b.data, (size_t)b.len);
                o[pre_len + b.len] = '}';
            }
        }
        if (bytes == NULL) {
            rc = -1;
            break;
        }
        PyList_SET_ITEM(out, i, bytes);
    }
    PyMem_Free(b.data);
    Py_DECREF(seq);
    if (rc != 0) {
        Py_DECREF(out);
        if (rc < 0) {
            return NULL;
        }
        Py_RETURN_NONE;
    }
    return out;
}

static PyObject *
FlatEncoder_encode(FlatEncoder *self, PyObject *const *args, Py_ssize_t nargs)
{
    return encode_batch(self, args, nargs, 0);
}

static PyObject *
FlatEncoder_encode_items(FlatEncoder *self, PyObject *const *args, Py_ssize_t nargs)
{
    return encode_batch(self, args, nargs, 1);
}

static PyMethodDef FlatEncoder_methods[] = {
    {"encode", (PyCFunction)(void (*)(void))FlatEncoder_encode, METH_FASTCALL,
     "encode(structs, prefix=None) -> list[bytes] | None\n\n"
     "Each Struct's JSON text (prefix + text + '}' when prefix is given), or None when a "
     "struct or value is not one this encoder writes."},
    {"encode_items", (PyCFunction)(void (*)(void))FlatEncoder_encode_items, METH_FASTCALL,
     "encode_items(items, prefix=None) -> list[bytes] | None\n\n"
     "As encode() for (topic, schema, struct) tuples, each of this encoder's schema; a "
     "tombstone (topic, None, None) gives None."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject FlatEncoderType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "kconnect_speedups._json.FlatEncoder",
    .tp_basicsize = sizeof(FlatEncoder),
    .tp_dealloc = (destructor)FlatEncoder_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "FlatEncoder(schema, keys, kinds, nullable, struct_type, defaults=None, "
              "extras=None): JSON text of Structs of one schema.",
    .tp_methods = FlatEncoder_methods,
    .tp_init = (initproc)FlatEncoder_init,
    .tp_new = PyType_GenericNew,
};

/* ---------------------------------------------------------------------------------- */
/* Module functions                                                                     */

static PyObject *
format_double(PyObject *module, PyObject *arg)
{
    double d = PyFloat_AsDouble(arg);
    if (d == -1.0 && PyErr_Occurred()) {
        return NULL;
    }
    if (!isfinite(d)) {
        PyErr_SetString(PyExc_ValueError, "not a finite double");
        return NULL;
    }
    char out[48];
    int n = java_double(d, out);
    if (n < 0) {
        return NULL;
    }
    return PyBytes_FromStringAndSize(out, n);
}

static PyObject *
short_double_py(PyObject *module, PyObject *arg)
{
    double d = PyFloat_AsDouble(arg);
    if (d == -1.0 && PyErr_Occurred()) {
        return NULL;
    }
    char out[48];
    double a = fabs(d);
    if (!(a >= 1e-3 && a < 1e7)) {
        Py_RETURN_NONE;
    }
    int n = short_double(d, out);
    if (n == 0) {
        Py_RETURN_NONE;
    }
    return PyBytes_FromStringAndSize(out, n);
}

/* ---------------------------------------------------------------------------------- */
/* Schemaless decode: a direct parser for the usual JSON, orjson for the rest          */

/*
 * parse_json() reads the JSON most records hold straight into Python objects: objects,
 * arrays, strings without escapes or control characters (UTF-8 checked by Python's strict
 * decoder), integers of at most 19 digits, numbers with a fraction or exponent, true,
 * false, null, nesting up to PARSE_DEPTH. It gives what orjson.loads gives for such a
 * text (equal values; a repeated key keeps its first place and its last value, as a dict
 * does). On anything else (an escape, a longer integer, a double that overflows, a
 * syntax error, a byte order mark, deeper nesting) it hands the text back, and the caller
 * calls orjson.loads, which gives the value or the error. Short strings are kept in two
 * small caches (keys up to 64 bytes, values up to 16), so the repeated keys and enum-like
 * values of a batch are made once: a str is immutable and shared freely.
 */
#define PARSE_DEPTH 128
#define KEY_CACHE 1024
#define KEY_CACHE_MAX 64
#define VALUE_CACHE 512
#define VALUE_CACHE_MAX 16

/* A cached str with its length and its first and last 8 bytes (zero-padded). */
typedef struct {
    PyObject *str;
    Py_ssize_t n;
    uint64_t head;
    uint64_t tail;
} CachedStr;

static CachedStr KEY_STRS[KEY_CACHE];
static CachedStr VALUE_STRS[VALUE_CACHE];

/* Every power of ten a double holds exactly. */
static const double EXACT_POW10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* Objects' sizes at each depth in the last text read: a new dict is made that large. */
static Py_ssize_t OBJECT_SIZES[PARSE_DEPTH + 2];

typedef struct {
    const unsigned char *p;
    const unsigned char *end;
    int depth;
    PyObject *parse_float; /* called with the text of a non-integral number, or NULL */
    int wrap_ints;         /* an integer beyond int64 as its low 64 bits, else hand back */
} Parser;

/* A parse function's NULL without an exception set: hand the text back. */
#define HAND_BACK NULL

static inline void
skip_ws(Parser *ps)
{
    const unsigned char *p = ps->p, *end = ps->end;
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) {
        p++;
    }
    ps->p = p;
}

/* The str of the n ASCII bytes at s, from cache (size entries) when n <= max. */
static PyObject *
cached_ascii(CachedStr *cache, Py_ssize_t size, Py_ssize_t max, const unsigned char *s,
             Py_ssize_t n)
{
    if (n > max) {
        PyObject *str = PyUnicode_New(n, 127);
        if (str != NULL) {
            memcpy(PyUnicode_1BYTE_DATA(str), s, (size_t)n);
        }
        return str;
    }
    uint64_t head = 0, tail = 0;
    if (n >= 8) {
        memcpy(&head, s, 8);
        memcpy(&tail, s + n - 8, 8);
    }
    else {
        for (Py_ssize_t i = 0; i < n; i++) {
            head |= (uint64_t)s[i] << (8 * i);
        }
    }
    uint64_t h = (head * 0x9E3779B97F4A7C15ULL) ^ (tail * 0xC2B2AE3D27D4EB4FULL) ^ (uint64_t)n;
    CachedStr *slot = &cache[(h ^ (h >> 29)) & (uint64_t)(size - 1)];
    if (slot->str != NULL && slot->n == n && slot->head == head && slot->tail == tail &&
        (n <= 16 || memcmp(PyUnicode_1BYTE_DATA(slot->str) + 8, s + 8, (size_t)(n - 16)) == 0)) {
        Py_INCREF(slot->str);
        return slot->str;
    }
    PyObject *str = PyUnicode_New(n, 127);
    if (str == NULL) {
        return NULL;
    }
    memcpy(PyUnicode_1BYTE_DATA(str), s, (size_t)n);
    if (PyObject_Hash(str) == -1) { /* kept in the str: every dict insert reuses it */
        Py_DECREF(str);
        return NULL;
    }
    Py_INCREF(str);
    Py_XSETREF(slot->str, str);
    slot->n = n;
    slot->head = head;
    slot->tail = tail;
    return str;
}

/* A string at ps->p (the opening quote). */
static PyObject *
parse_string(Parser *ps, int key)
{
    const unsigned char *start = ps->p + 1, *p = start, *end = ps->end;
    unsigned char high = 0;
    /* Eight bytes at a time while none is a quote, a backslash or a control character
     * (each test exact for "any byte of the eight"). */
    const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
    uint64_t any_high = 0;
    while (end - p >= 8) {
        uint64_t w, q, b;
        memcpy(&w, p, 8);
        q = w ^ (ones * '"');
        b = w ^ (ones * '\\');
        if ((((q - ones) & ~q) | ((b - ones) & ~b) | ((w - ones * 0x20) & ~w)) & highs) {
            break;
        }
        any_high |= w;
        p += 8;
    }
    if (any_high & highs) {
        high = 0x80;
    }
    while (p < end) {
        unsigned char c = *p;
        if (c == '"') {
            break;
        }
        if (c == '\\' || c < 0x20) {
            return HAND_BACK;
        }
        high |= c;
        p++;
    }
    if (p >= end) {
        return HAND_BACK;
    }
    ps->p = p + 1;
    Py_ssize_t n = p - start;
    if (high & 0x80) {
        PyObject *str = PyUnicode_DecodeUTF8((const char *)start, n, "strict");
        if (str == NULL && PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) {
            PyErr_Clear(); /* orjson says what is wrong with it */
        }
        return str;
    }
    if (key) {
        return cached_ascii(KEY_STRS, KEY_CACHE, KEY_CACHE_MAX, start, n);
    }
    return cached_ascii(VALUE_STRS, VALUE_CACHE, VALUE_CACHE_MAX, start, n);
}

#if defined(__x86_64__) && LDBL_MANT_DIG == 64
/*
 * m * 10^k (|k| <= 22, m < 2^64: up to 19 digits, as doubles print with 17) through the
 * x87's 64-bit significand: m and 10^|k| (5^22 < 2^52) are exact there, so q is the
 * exact value rounded once to 64 bits, within half a unit of its last bit. Rounding q to
 * a double gives the correctly rounded double unless a halfway point between two doubles
 * lies within that half unit, which needs q's 11 bits below the double's to be 0x3FF,
 * 0x400 or 0x401: then (about 3 texts in 2048) returns 0 and strtod decides. Normal
 * numbers only in this range: q is between 1e-22 and 2^64 * 1e22.
 */
static int
long_double_fits(uint64_t m, long k, double *out)
{
    if (m == 0) {
        return 0;
    }
    long double q = k < 0 ? (long double)m / (long double)EXACT_POW10[-k]
                          : (long double)m * (long double)EXACT_POW10[k];
    uint64_t significand;
    memcpy(&significand, &q, 8); /* the low 8 bytes of the 80-bit format */
    unsigned int low = (unsigned int)(significand & 0x7FF);
    if (low >= 0x3FF && low <= 0x401) {
        return 0;
    }
    *out = (double)q;
    return 1;
}
#endif

static PyObject *
parse_number(Parser *ps)
{
    const unsigned char *start = ps->p, *p = start, *end = ps->end;
    int negative = 0;
    if (*p == '-') {
        negative = 1;
        p++;
    }
    if (p >= end || *p < '0' || *p > '9') {
        return HAND_BACK;
    }
    uint64_t m = 0;
    uint64_t low = 0; /* the integer part modulo 2^64 */
    int digits = 0;   /* significant digits read into m (up to 19) */
    int dropped = 0;  /* digits past those, before the point */
    int fraction = 0; /* digits read into m after the point */
    int is_float = 0;
    if (*p == '0') {
        p++;
        if (p < end && *p >= '0' && *p <= '9') {
            return HAND_BACK; /* a leading zero: orjson refuses it */
        }
    }
    else {
        for (; p < end && *p >= '0' && *p <= '9'; p++) {
            low = low * 10 + (uint64_t)(*p - '0');
            if (digits < 19) {
                m = m * 10 + (uint64_t)(*p - '0');
                digits++;
            }
            else {
                dropped++;
            }
        }
    }
    if (p < end && *p == '.') {
        is_float = 1;
        p++;
        if (p >= end || *p < '0' || *p > '9') {
            return HAND_BACK;
        }
        for (; p < end && *p >= '0' && *p <= '9'; p++) {
            if (digits < 19) {
                if (m != 0 || *p != '0') {
                    digits++;
                }
                m = m * 10 + (uint64_t)(*p - '0');
                fraction++;
            }
            else {
                dropped++;
            }
        }
    }
    long exponent = 0;
    if (p < end && (*p == 'e' || *p == 'E')) {
        is_float = 1;
        p++;
        int minus = 0;
        if (p < end && (*p == '+' || *p == '-')) {
            minus = *p == '-';
            p++;
        }
        if (p >= end || *p < '0' || *p > '9') {
            return HAND_BACK;
        }
        for (; p < end && *p >= '0' && *p <= '9'; p++) {
            if (exponent < 100000) {
                exponent = exponent * 10 + (*p - '0');
            }
        }
        if (minus) {
            exponent = -exponent;
        }
    }
    ps->p = p;
    if (!is_float) {
        /* Up to 19 digits m is exact; orjson reads an int past 64 bits as a double. */
        if (ps->wrap_ints &&
            (dropped > 0 || m > (negative ? (1ULL << 63) : (uint64_t)LLONG_MAX))) {
            /* Kafka's schemaless read: BigInteger.longValue, the two's complement low 64
             * bits (2^64 is 0, 2^63 is -2^63). */
            uint64_t bits = negative ? 0 - low : low;
            int64_t wrapped;
            memcpy(&wrapped, &bits, sizeof wrapped);
            return PyLong_FromLongLong(wrapped);
        }
        if (dropped > 0 || (negative && m > (1ULL << 63))) {
            return HAND_BACK;
        }
        if (negative) {
            return PyLong_FromLongLong(m == (1ULL << 63) ? LLONG_MIN : -(long long)m);
        }
        return PyLong_FromUnsignedLongLong(m);
    }
    if (ps->parse_float != NULL) {
        /* The number's own text, as the stdlib's json gives it to parse_float. */
        PyObject *text = PyUnicode_FromStringAndSize((const char *)start, p - start);
        if (text == NULL) {
            return NULL;
        }
        PyObject *out = PyObject_CallOneArg(ps->parse_float, text);
        Py_DECREF(text);
        return out;
    }
    double value;
    long k = exponent - fraction;
    if (dropped == 0 && m <= (1ULL << 53) && k >= -22 && k <= 22) {
        /* m and 10^|k| are exact doubles, so the one operation rounds correctly. */
        value = k < 0 ? (double)m / EXACT_POW10[-k] : (double)m * EXACT_POW10[k];
    }
#if defined(__x86_64__) && LDBL_MANT_DIG == 64
    else if (dropped == 0 && k >= -22 && k <= 22 && long_double_fits(m, k, &value)) {
    }
#endif
    else {
        char text[64];
        Py_ssize_t n = p - start;
        if (n >= (Py_ssize_t)sizeof(text)) {
            return HAND_BACK;
        }
        memcpy(text, start, (size_t)n);
        text[n] = '\0';
        /* A JSON number is a valid Python float literal; correctly rounded, as orjson. */
        value = PyOS_string_to_double(text, NULL, NULL);
        if (value == -1.0 && PyErr_Occurred()) {
            return NULL;
        }
        if (!isfinite(value)) {
            return HAND_BACK; /* orjson: "number is infinity when parsed as double" */
        }
        return PyFloat_FromDouble(value);
    }
    return PyFloat_FromDouble(negative ? -value : value);
}

static PyObject *parse_value(Parser *ps);

static PyObject *
parse_array(Parser *ps)
{
    ps->p++;
    PyObject *list = PyList_New(0);
    if (list == NULL) {
        return NULL;
    }
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == ']') {
        ps->p++;
        return list;
    }
    for (;;) {
        PyObject *item = parse_value(ps);
        if (item == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        int rc = PyList_Append(list, item);
        Py_DECREF(item);
        if (rc < 0) {
            Py_DECREF(list);
            return NULL;
        }
        skip_ws(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            continue;
        }
        if (ps->p < ps->end && *ps->p == ']') {
            ps->p++;
            return list;
        }
        Py_DECREF(list);
        return HAND_BACK;
    }
}

static PyObject *
parse_object(Parser *ps)
{
    ps->p++;
    Py_ssize_t *size = &OBJECT_SIZES[ps->depth];
    PyObject *dict = *size > 5 ? _PyDict_NewPresized(*size) : PyDict_New();
    if (dict == NULL) {
        return NULL;
    }
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == '}') {
        ps->p++;
        return dict;
    }
    for (;;) {
        skip_ws(ps);
        if (ps->p >= ps->end || *ps->p != '"') {
            break;
        }
        PyObject *key = parse_string(ps, 1);
        if (key == NULL) {
            break;
        }
        skip_ws(ps);
        if (ps->p >= ps->end || *ps->p != ':') {
            Py_DECREF(key);
            break;
        }
        ps->p++;
        PyObject *value = parse_value(ps);
        if (value == NULL) {
            Py_DECREF(key);
            break;
        }
        Py_hash_t hash = ((PyASCIIObject *)key)->hash;
        int rc = hash != -1 ? _PyDict_SetItem_KnownHash(dict, key, value, hash)
                            : PyDict_SetItem(dict, key, value);
        Py_DECREF(key);
        Py_DECREF(value);
        if (rc < 0) {
            break;
        }
        skip_ws(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            continue;
        }
        if (ps->p < ps->end && *ps->p == '}') {
            ps->p++;
            *size = PyDict_GET_SIZE(dict) <= 256 ? PyDict_GET_SIZE(dict) : 0;
            return dict;
        }
        break;
    }
    Py_DECREF(dict);
    return HAND_BACK; /* or NULL with the exception set */
}

static PyObject *
parse_value(Parser *ps)
{
    skip_ws(ps);
    if (ps->p >= ps->end) {
        return HAND_BACK;
    }
    const unsigned char *p = ps->p;
    Py_ssize_t left = ps->end - p;
    PyObject *out;
    switch (*p) {
    case '{':
    case '[':
        if (++ps->depth > PARSE_DEPTH) {
            return HAND_BACK;
        }
        out = *p == '{' ? parse_object(ps) : parse_array(ps);
        ps->depth--;
        return out;
    case '"':
        return parse_string(ps, 0);
    case 't':
        if (left >= 4 && memcmp(p, "true", 4) == 0) {
            ps->p += 4;
            Py_RETURN_TRUE;
        }
        return HAND_BACK;
    case 'f':
        if (left >= 5 && memcmp(p, "false", 5) == 0) {
            ps->p += 5;
            Py_RETURN_FALSE;
        }
        return HAND_BACK;
    case 'n':
        if (left >= 4 && memcmp(p, "null", 4) == 0) {
            ps->p += 4;
            Py_RETURN_NONE;
        }
        return HAND_BACK;
    default:
        return parse_number(ps);
    }
}

/* The value of the JSON text data[0:n], or NULL: with an exception set (out of memory),
 * or without one, when the text is not one parse_json reads (see above). */
static PyObject *
parse_json(const char *data, Py_ssize_t n, PyObject *parse_float, int wrap_ints)
{
    Parser ps = {(const unsigned char *)data, (const unsigned char *)data + n, 0, parse_float,
                 wrap_ints};
    PyObject *out = parse_value(&ps);
    if (out == NULL) {
        return NULL;
    }
    skip_ws(&ps);
    if (ps.p != ps.end) {
        Py_DECREF(out);
        return HAND_BACK; /* something after the value */
    }
    return out;
}

#define IS_DIGIT(c) ((c) >= '0' && (c) <= '9')

/* Whether d[0:n] holds a run of 19 or more digits: where an integer beyond int64 may be. */
static int
long_digit_run(const unsigned char *d, Py_ssize_t n)
{
    Py_ssize_t run = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (IS_DIGIT(d[i])) {
            if (++run >= 19) {
                return 1;
            }
        }
        else {
            run = 0;
        }
    }
    return 0;
}

/* A schemaless read of one text: parse_json with integers beyond int64 wrapped, or, where
 * it hands back, loads(data); long_loads(data) instead when the text may hold such an
 * integer, which orjson reads as an int up to 2^64 - 1 or a double. */
static PyObject *
loads_one(PyObject *data, PyObject *loads, vectorcallfunc call, PyObject *long_loads)
{
    if (PyBytes_CheckExact(data)) {
        const char *d = PyBytes_AS_STRING(data);
        Py_ssize_t n = PyBytes_GET_SIZE(data);
        PyObject *out = parse_json(d, n, NULL, 1);
        if (out != NULL || PyErr_Occurred()) {
            return out;
        }
        if (long_digit_run((const unsigned char *)d, n)) {
            return PyObject_CallOneArg(long_loads, data);
        }
    }
    else if (!PyBytes_Check(data) || long_digit_run((const unsigned char *)PyBytes_AS_STRING(data),
                                                    PyBytes_GET_SIZE(data))) {
        return PyObject_CallOneArg(long_loads, data);
    }
    return call != NULL ? call(loads, &data, 1, NULL) : PyObject_CallOneArg(loads, data);
}

static PyObject *
parse_py(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs < 2 || nargs > 3 || !PyBytes_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "parse(data: bytes, default, parse_float=None)");
        return NULL;
    }
    PyObject *parse_float = nargs == 3 && args[2] != Py_None ? args[2] : NULL;
    PyObject *out =
        parse_json(PyBytes_AS_STRING(args[0]), PyBytes_GET_SIZE(args[0]), parse_float, 0);
    if (out == NULL && !PyErr_Occurred()) {
        Py_INCREF(args[1]);
        return args[1];
    }
    return out;
}

/*
 * read_payloads(datas, prefix, loads, parse_float=None, tombstone=None): the payload of
 * each envelope in datas (bytes that start with prefix and end with "}"), read by
 * parse_json (with parse_float, see parse()) or, where it hands back, by loads(payload
 * bytes); tombstone in place of a None item when tombstone is given. None when an item is
 * not such bytes, or loads raises a ValueError or TypeError: the caller then reads record
 * by record.
 */
static PyObject *
read_payloads(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs < 3 || nargs > 5 || !PyBytes_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "read_payloads(datas, prefix: bytes, loads, "
                                         "parse_float=None, tombstone=None)");
        return NULL;
    }
    PyObject *parse_float = nargs >= 4 && args[3] != Py_None ? args[3] : NULL;
    PyObject *tombstone = nargs == 5 && args[4] != Py_None ? args[4] : NULL;
    PyObject *seq = PySequence_Fast(args[0], "datas must be a sequence");
    if (seq == NULL) {
        return NULL;
    }
    const char *pre = PyBytes_AS_STRING(args[1]);
    Py_ssize_t pre_len = PyBytes_GET_SIZE(args[1]);
    PyObject *loads = args[2];
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject *out = PyList_New(n);
    if (out == NULL) {
        Py_DECREF(seq);
        return NULL;
    }
    /* As in decode_schemaless: no cycles made, the collector runs after the batch. */
    int gc_was_enabled = PyGC_Disable();
    int whole = 1;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *data = PySequence_Fast_GET_ITEM(seq, i);
        if (data == Py_None && tombstone != NULL) {
            Py_INCREF(tombstone);
            PyList_SET_ITEM(out, i, tombstone);
            continue;
        }
        if (!PyBytes_CheckExact(data)) {
            whole = 0;
            break;
        }
        const char *d = PyBytes_AS_STRING(data);
        Py_ssize_t len = PyBytes_GET_SIZE(data);
        if (len < pre_len + 1 || d[len - 1] != '}' || memcmp(d, pre, (size_t)pre_len) != 0) {
            whole = 0;
            break;
        }
        PyObject *value = parse_json(d + pre_len, len - pre_len - 1, parse_float, 0);
        if (value == NULL && !PyErr_Occurred()) {
            PyObject *payload = PyBytes_FromStringAndSize(d + pre_len, len - pre_len - 1);
            if (payload != NULL) {
                value = PyObject_CallOneArg(loads, payload);
                Py_DECREF(payload);
            }
            if (value == NULL && (PyErr_ExceptionMatches(PyExc_ValueError) ||
                                  PyErr_ExceptionMatches(PyExc_TypeError))) {
                PyErr_Clear();
                whole = 0;
                break;
            }
        }
        if (value == NULL) {
            whole = -1;
            break;
        }
        PyList_SET_ITEM(out, i, value);
    }
    if (gc_was_enabled) {
        PyGC_Enable();
    }
    Py_DECREF(seq);
    if (whole != 1) {
        Py_DECREF(out);
        if (whole < 0) {
            return NULL;
        }
        Py_RETURN_NONE;
    }
    return out;
}

static PyObject *
decode_schemaless(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError,
                        "decode_schemaless(items, loads, sv_type, null_sv, long_loads)");
        return NULL;
    }
    PyObject *items = args[0], *loads = args[1], *sv_type = args[2], *null_sv = args[3];
    PyObject *long_loads = args[4];
    if (!PyType_Check(sv_type) || !PyType_IsSubtype((PyTypeObject *)sv_type, &PyTuple_Type)) {
        PyErr_SetString(PyExc_TypeError, "sv_type must be a tuple subclass");
        return NULL;
    }
    PyTypeObject *tp = (PyTypeObject *)sv_type;
    PyObject *seq = PySequence_Fast(items, "items must be a sequence");
    if (seq == NULL) {
        return NULL;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject *out = PyList_New(n);
    if (out == NULL) {
        Py_DECREF(seq);
        return NULL;
    }
    vectorcallfunc call = PyVectorcall_Function(loads);
    /* The loop allocates three containers per record (the parsed object, its values, the
     * SchemaAndValue) and makes no cycles; letting the collector scan them every 700
     * allocations costs about a tenth of the loop. It runs once, after the batch, instead.
     * No Python code of ours runs in between, so no other code sees the collector off. */
    int gc_was_enabled = PyGC_Disable();
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
        PyObject *data;
        if (PyTuple_CheckExact(item) && PyTuple_GET_SIZE(item) == 2) {
            data = PyTuple_GET_ITEM(item, 1);
            Py_INCREF(data);
        }
        else {
            data = PySequence_GetItem(item, 1);
            if (data == NULL) {
                goto fail;
            }
        }
        PyObject *sv;
        if (data == Py_None) {
            Py_DECREF(data);
            Py_INCREF(null_sv);
            sv = null_sv;
        }
        else {
            PyObject *node = loads_one(data, loads, call, long_loads);
            Py_DECREF(data);
            if (node == NULL) {
                goto fail;
            }
            sv = tp->tp_alloc(tp, 2);
            if (sv == NULL) {
                Py_DECREF(node);
                goto fail;
            }
            Py_INCREF(Py_None);
            PyTuple_SET_ITEM(sv, 0, Py_None);
            PyTuple_SET_ITEM(sv, 1, node);
        }
        PyList_SET_ITEM(out, i, sv);
    }
    if (gc_was_enabled) {
        PyGC_Enable();
    }
    Py_DECREF(seq);
    return out;
fail:
    if (gc_was_enabled) {
        PyGC_Enable();
    }
    Py_DECREF(seq);
    Py_DECREF(out);
    return NULL;
}

/* Python's maybe_scientific screen of one JSON text (kconnect_converter_json._codec):
 * with every digit as 0, "." and "e" kept and every other byte a space, whether the text
 * holds "0e", "00000000." or " 0.000", or starts with "0.000". */
#define IS_OTHER(c) (!IS_DIGIT(c) && (c) != '.' && (c) != 'e')

static int
maybe_scientific(const unsigned char *d, Py_ssize_t n)
{
    /* Only a '.' or an 'e' can complete a pattern: jump from one to the next, eight bytes
     * at a time where there is none (the test is exact for "any of the eight"), and
     * count the digits just before each. */
    const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
    Py_ssize_t i = 0;
    for (;;) {
        while (n - i >= 8) {
            uint64_t w, a, b;
            memcpy(&w, d + i, 8);
            a = w ^ (ones * '.');
            b = w ^ (ones * 'e');
            if ((((a - ones) & ~a) | ((b - ones) & ~b)) & highs) {
                break;
            }
            i += 8;
        }
        while (i < n && d[i] != '.' && d[i] != 'e') {
            i++;
        }
        if (i >= n) {
            return 0;
        }
        Py_ssize_t run = 0; /* digits just before i, up to 8 */
        while (run < 8 && run < i && IS_DIGIT(d[i - 1 - run])) {
            run++;
        }
        if (d[i] == 'e') {
            if (run > 0) {
                return 1;
            }
        }
        else {
            if (run >= 8) {
                return 1;
            }
            /* " 0.000" (one digit after another byte), or "0.000" at the start */
            if (run == 1 && i + 3 < n && IS_DIGIT(d[i + 1]) && IS_DIGIT(d[i + 2]) &&
                IS_DIGIT(d[i + 3]) && (i == 1 || IS_OTHER(d[i - 2]))) {
                return 1;
            }
        }
        i++;
    }
}

/* Whether d[0:n] holds "null". */static int
holds_null(const unsigned char *d, Py_ssize_t n)
{
    const unsigned char *p = d, *end = d + n;
    while (end - p >= 4 && (p = memchr(p, 'n', (size_t)(end - p - 3))) != NULL) {
        if (memcmp(p, "null", 4) == 0) {
            return 1;
        }
        p++;
    }
    return 0;
}

static PyObject *
screen(PyObject *module, PyObject *arg)
{
    PyObject *seq = PySequence_Fast(arg, "screen() needs a sequence of bytes");
    if (seq == NULL) {
        return NULL;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    long flags = 0;
    for (Py_ssize_t i = 0; i < n && flags != 7; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
        if (!PyBytes_Check(item)) {
            Py_DECREF(seq);
            PyErr_SetString(PyExc_TypeError, "screen() needs a sequence of bytes");
            return NULL;
        }
        const unsigned char *d = (const unsigned char *)PyBytes_AS_STRING(item);
        Py_ssize_t len = PyBytes_GET_SIZE(item);
        if (!(flags & 1) && maybe_scientific(d, len)) {
            flags |= 1;
        }
        if (!(flags & 2) && memchr(d, '\\', (size_t)len) != NULL) {
            flags |= 2;
        }
        if (!(flags & 4) && holds_null(d, len)) {
            flags |= 4;
        }
    }
    Py_DECREF(seq);
    return PyLong_FromLong(flags);
}

static PyObject *KWNAMES_DUMPS; /* ("default", "option") */

/*
 * Whether v holds a NaN or infinite float in the containers orjson writes itself (dicts,
 * lists, tuples; their subclasses too): orjson writes those floats as null, Kafka (Jackson)
 * as the strings "NaN", "Infinity" and "-Infinity". 1 yes, 0 no, -1 with an exception set
 * (nesting deeper than orjson allows is "yes": the caller's own path then decides).
 */
static int
non_finite_in(PyObject *v, int depth)
{
    if (PyFloat_Check(v)) {
        return !isfinite(PyFloat_AS_DOUBLE(v));
    }
    if (depth > 255) {
        return 1;
    }
    if (PyDict_Check(v)) {
        Py_ssize_t pos = 0;
        PyObject *key, *value;
        while (PyDict_Next(v, &pos, &key, &value)) {
            if (PyFloat_Check(value) || PyDict_Check(value) || PyList_Check(value) ||
                PyTuple_Check(value)) {
                int found = non_finite_in(value, depth + 1);
                if (found != 0) {
                    return found;
                }
            }
        }
        return 0;
    }
    if (PyList_Check(v) || PyTuple_Check(v)) {
        PyObject *seq = v;
        Py_INCREF(seq); /* a list may shrink under us only through Python code: none runs */
        Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
        int found = 0;
        for (Py_ssize_t i = 0; i < n && found == 0; i++) {
            PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
            if (PyFloat_Check(item) || PyDict_Check(item) || PyList_Check(item) ||
                PyTuple_Check(item)) {
                found = non_finite_in(item, depth + 1);
            }
        }
        Py_DECREF(seq);
        return found;
    }
    return 0;
}

static PyObject *
has_non_finite(PyObject *module, PyObject *arg)
{
    int found = non_finite_in(arg, 0);
    if (found < 0) {
        return NULL;
    }
    return PyBool_FromLong(found);
}

static PyObject *
encode_schemaless(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "encode_schemaless(items, dumps, default, option)");
        return NULL;
    }
    PyObject *dumps = args[1];
    PyObject *seq = PySequence_Fast(args[0], "items must be a sequence");
    if (seq == NULL) {
        return NULL;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject *out = PyList_New(n);
    if (out == NULL) {
        Py_DECREF(seq);
        return NULL;
    }
    long flags = 0;
    PyObject *call[4] = {NULL, NULL, args[2], args[3]}; /* [0] free for vectorcall */
    for (Py_ssize_t i = 0; i < n; i++) {
        if (i >= PySequence_Fast_GET_SIZE(seq)) { /* dumps ran Python code (default) */
            goto hand_back;
        }
        PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
        if (!PyTuple_CheckExact(item) || PyTuple_GET_SIZE(item) != 3 ||
            PyTuple_GET_ITEM(item, 1) != Py_None || PyTuple_GET_ITEM(item, 2) == Py_None) {
            goto hand_back;
        }
        Py_INCREF(item);
        call[1] = PyTuple_GET_ITEM(item, 2);
        PyObject *text = PyObject_Vectorcall(dumps, call + 1, 1 | PY_VECTORCALL_ARGUMENTS_OFFSET,
                                             KWNAMES_DUMPS);
        if (text == NULL) {
            Py_DECREF(item);
            if (PyErr_ExceptionMatches(PyExc_TypeError)) {
                PyErr_Clear(); /* the per-record path writes it or names the record */
                goto hand_back;
            }
            goto fail;
        }
        if (!PyBytes_Check(text)) {
            Py_DECREF(item);
            Py_DECREF(text);
            goto hand_back;
        }
        const unsigned char *d = (const unsigned char *)PyBytes_AS_STRING(text);
        Py_ssize_t len = PyBytes_GET_SIZE(text);
        if (!(flags & 1) && maybe_scientific(d, len)) {
            flags |= 1;
        }
        if (!(flags & 2) && memchr(d, '\\', (size_t)len) != NULL) {
            flags |= 2;
        }
        PyList_SET_ITEM(out, i, text);
        /* orjson writes a NaN or an infinity as null: only a text with a null may hold one,
         * and then the value says (the Python path writes it as Kafka does). */
        int non_finite = holds_null(d, len) ? non_finite_in(PyTuple_GET_ITEM(item, 2), 0) : 0;
        Py_DECREF(item);
        if (non_finite != 0) {
            goto hand_back;
        }
    }
    Py_DECREF(seq);
    PyObject *result = Py_BuildValue("(Nl)", out, flags);
    return result;
hand_back:
    Py_DECREF(seq);
    Py_DECREF(out);
    Py_RETURN_NONE;
fail:
    Py_DECREF(seq);
    Py_DECREF(out);
    return NULL;
}

static PyMethodDef module_methods[] = {
    {"encode_schemaless", (PyCFunction)(void (*)(void))encode_schemaless, METH_FASTCALL,
     "encode_schemaless(items, dumps, default, option) -> (list[bytes], flags) | None\n\n"
     "dumps(value, default=default, option=option) of each (topic, None, value) item and "
     "the screen() flags of the texts (bits 1 and 2); None when an item has a schema or "
     "no value, holds a NaN or an infinity, or dumps raises a TypeError."},
    {"screen", (PyCFunction)screen, METH_O,
     "screen(texts) -> int: bit 1 when any text may hold a double Java writes in "
     "scientific notation (the converter's maybe_scientific screen, text by text), bit 2 "
     "when any holds a backslash, bit 4 when any holds null (orjson's text of a NaN or "
     "an infinity)."},
    {"has_non_finite", (PyCFunction)has_non_finite, METH_O,
     "has_non_finite(value) -> bool: whether value holds a NaN or infinite float in its "
     "dicts, lists and tuples (the converter's has_non_finite)."},
    {"format_double", (PyCFunction)format_double, METH_O,
     "format_double(v) -> bytes: v as Java's Double.toString writes it (v finite)."},
    {"short_double", (PyCFunction)short_double_py, METH_O,
     "short_double(v) -> bytes | None: the fast path's text of v, None where it defers "
     "to repr (for tests)."},
    {"parse", (PyCFunction)(void (*)(void))parse_py, METH_FASTCALL,
     "parse(data, default, parse_float=None) -> object\n\n"
     "The value of the JSON text data (bytes) as orjson.loads reads it (with parse_float: "
     "as json.loads(data, parse_float=parse_float) does), read by the compiled parser; "
     "default when that parser hands the text back. Exceptions of parse_float propagate."},
    {"read_payloads", (PyCFunction)(void (*)(void))read_payloads, METH_FASTCALL,
     "read_payloads(datas, prefix, loads, parse_float=None, tombstone=None) -> list | None"
     "\n\n"
     "The payload of each envelope (bytes starting with prefix, ending with '}'), read by "
     "the compiled parser (parse_float as in parse()) or loads, tombstone for a None item "
     "when given; None when an item is not such bytes or loads raises a ValueError or "
     "TypeError."},
    {"decode_schemaless", (PyCFunction)(void (*)(void))decode_schemaless, METH_FASTCALL,
     "decode_schemaless(items, loads, sv_type, null_sv, long_loads) -> list\n\n"
     "sv_type((None, loads(data))) for each (topic, data) in items; null_sv for a None "
     "data. Integers beyond int64 are read as their low 64 bits (as Kafka does): by the "
     "compiled parser, or by long_loads(data) instead of loads where the text may hold "
     "one (a run of 19 digits). Exceptions of loads and long_loads propagate."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT,
    .m_name = "kconnect_speedups._json",
    .m_doc = "Compiled fast paths of kconnect-converter-json.",
    .m_size = -1,
    .m_methods = module_methods,
};

PyMODINIT_FUNC
PyInit__json(void)
{
    init_escapes();
    STR_SCHEMA = PyUnicode_InternFromString("schema");
    STR_VALUES = PyUnicode_InternFromString("_values");
    /* Interned, as keyword names are: orjson compares them by identity. */
    PyObject *kw_default = PyUnicode_InternFromString("default");
    PyObject *kw_option = PyUnicode_InternFromString("option");
    if (kw_default == NULL || kw_option == NULL) {
        Py_XDECREF(kw_default);
        Py_XDECREF(kw_option);
        return NULL;
    }
    KWNAMES_DUMPS = PyTuple_Pack(2, kw_default, kw_option);
    Py_DECREF(kw_default);
    Py_DECREF(kw_option);
    if (KWNAMES_DUMPS == NULL) {
        return NULL;
    }
    if (STR_SCHEMA == NULL || STR_VALUES == NULL) {
        return NULL;
    }
    if (PyType_Ready(&FlatEncoderType) < 0) {
        return NULL;
    }
    PyObject *m = PyModule_Create(&moduledef);
    if (m == NULL) {
        return NULL;
    }
    Py_INCREF(&FlatEncoderType);
    if (PyModule_AddObject(m, "FlatEncoder", (PyObject *)&FlatEncoderType) < 0) {
        Py_DECREF(&FlatEncoderType);
        Py_DECREF(m);
        return NULL;
    }
    /* How many field kinds FlatEncoder knows (9: up to K_CALL; 11: K_BYTES, K_DECIMAL). */
    if (PyModule_AddIntConstant(m, "FIELD_KINDS", K_NKINDS) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    /* The kconnect_sdk.LAYOUT_VERSION this module reads Structs in (their values as one list
     * in field order): optional_speedups refuses the module under an SDK of another layout. */
    if (PyModule_AddIntConstant(m, "LAYOUT_VERSION", 1) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}

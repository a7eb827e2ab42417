/*
 * kconnect_speedups._mysql: the compiled row-image decoder of kconnect-connector-mysql.
 *
 * RowDecoder reads the row images of a binlog rows event (WRITE/UPDATE/DELETE_ROWS, full
 * row image) for one table map: per row the null bitmap, then each non-null column in the
 * binlog's encoding of its type, into a list of the included columns' values, each passed
 * through its converter when it has one. The caller (kconnect_connector_mysql._decoder)
 * describes every column once, as a plan, and gets the same values its generated Python
 * decoder gives: ints, floats, decimal.Decimal (from the text "<sign><digits>E-<scale>", so
 * with the same exponent), str decoded with errors='replace', bytes, datetime.date /
 * datetime.datetime / datetime.timedelta (None for zero and invalid dates), or directly
 * days / epoch milliseconds / epoch microseconds for Debezium's date and timestamp types.
 *
 * Every read is checked against the end of the rows (and of the bytes): a truncated or
 * corrupt row image raises ValueError naming the table, the row and the column.
 *
 * PlainCreates is the connector's hot loop after decoding (_task._plain_creates): per
 * inserted row, the Debezium envelope's Structs and the SourceRecord tuple, made as that
 * loop's struct_maker and record_maker make them (a Struct's two slots set, its values one
 * list in field order; the record a tuple of its fields in declared order), so the objects
 * are the same. That is kconnect_sdk's LAYOUT_VERSION 1, exported as this module's
 * LAYOUT_VERSION: optional_speedups refuses the module under an SDK of another layout.
 *
 * TextRows reads the snapshot's rows: the row packets of a text-protocol result set, as
 * the connector's generated reader (_resultset) does, into the same values (pymysql's
 * decoding and converter per column, then the caller's callable). Packets are read only
 * when complete; a field that runs past the end of its packet is a ValueError, where the
 * generated reader would read on into the next packet.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <datetime.h>
#include <structmember.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The kconnect_sdk.LAYOUT_VERSION whose Structs and records PlainCreates builds. */
#define LAYOUT_VERSION 1

/* Column kinds; the caller's codes (exported as module constants). */
enum {
    K_INT = 1,        /* little-endian integer of size 1, 2, 3, 4 or 8; param 1 when signed */
    K_FLOAT = 2,      /* 4-byte IEEE float, as a Python float */
    K_DOUBLE = 3,     /* 8-byte IEEE double */
    K_YEAR = 4,       /* one byte: 0, or the year - 1900 */
    K_DECIMAL = 5,    /* size bytes; param precision, mode scale; extra: reader(raw) for
                         values whose digit groups are out of range (corrupt) */
    K_STRING = 6,     /* size: length-prefix bytes (1..4); then codec/table decode it */
    K_ENUM = 7,       /* size 1 or 2: the label's index in extra (a tuple, "" first) */
    K_SET = 8,        /* size 1..8: a bit per label of extra (a tuple), joined with "," */
    K_BIT = 9,        /* size bytes, as bytes */
    K_DATE = 10,      /* 3 bytes; mode 0: datetime.date, 1: days since 1970-01-01 */
    K_DATETIME2 = 11, /* 5 bytes + fraction; param fsp; mode 0: datetime.datetime,
                         1: epoch milliseconds, 2: epoch microseconds */
    K_TIMESTAMP2 = 12, /* 4 bytes + fraction; param fsp: naive UTC datetime.datetime */
    K_TIME2 = 13,     /* 3 bytes + fraction (6 bytes from fsp 5); param fsp: timedelta */
    K_CALL = 14,      /* size: length-prefix bytes (1..4); the value is extra(bytes) */
    K_LAST = 14
};

/* How a K_STRING column's bytes become its value. */
enum { T_BYTES, T_UTF8, T_CHARMAP, T_CODEC };

typedef struct {
    int kind;
    int text;          /* T_*, for K_STRING */
    int ascii_table;   /* T_CHARMAP: the table maps 0..127 to themselves */
    Py_ssize_t size;
    Py_ssize_t param;
    Py_ssize_t mode;
    Py_ssize_t slot;   /* index in the row, -1 when the column is not included */
    PyObject *codec;   /* str (T_CODEC) or NULL */
    const char *codec_name;
    PyObject *table;   /* str of 256 characters (T_CHARMAP) or NULL */
    PyObject *extra;   /* labels tuple (K_ENUM, K_SET) or callable (K_DECIMAL, K_CALL) */
    PyObject *convert; /* callable applied to the value, or NULL */
    PyObject *name;    /* for error messages */
    /* K_DECIMAL: the digit groups, most significant first (see decimal_value). */
    int int_rest, int_rest_bytes, int_full, frac_full, frac_rest, frac_rest_bytes;
} Column;

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    Py_ssize_t ncols;
    Py_ssize_t width;    /* values per decoded row */
    Py_ssize_t nbitmap;  /* bytes of the null bitmap */
    Column *cols;
    Py_ssize_t nconv;
    Py_ssize_t *conv_slots; /* the row slots whose value goes through a converter */
    PyObject **conv_fns;
    PyObject *decimal;   /* decimal.Decimal */
    PyObject *where;     /* "table db.t", for error messages */
} Decoder;

static const int DIG2BYTES[10] = {0, 1, 1, 2, 2, 3, 3, 4, 4, 4};
static const uint32_t POW10[10] = {
    1u, 10u, 100u, 1000u, 10000u, 100000u, 1000000u, 10000000u, 100000000u, 1000000000u,
};
/* Fraction bytes per fsp and the factor that makes their value microseconds. */
static const int FRAC_BYTES[7] = {0, 1, 1, 2, 2, 3, 3};
static const int32_t FRAC_SCALE[7] = {0, 10000, 10000, 100, 100, 1, 1};

/* ---------------------------------------------------------------------------------- */
/* Calendar arithmetic (Python's floor division where operands may be negative)        */

static inline int64_t
floordiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

static inline int64_t
floormod(int64_t a, int64_t b)
{
    return a - floordiv(a, b) * b;
}

/* Days from 1970-01-01 to y-m-d, proleptic Gregorian; as the connector's _civil_days
   (m may be 1..15 and d 1..31: no validation, the same arithmetic). */
static int64_t
civil_days(int64_t y, int64_t m, int64_t d)
{
    y -= m <= 2;
    int64_t era = floordiv(y, 400);
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    return era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
}

/* The date of a day number (z >= -719468, i.e. from year 0). */
static void
civil_from_days(int64_t z, int *y, int *m, int *d)
{
    z += 719468;
    int64_t era = floordiv(z, 146097);
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = (int)(yoe + era * 400 + (*m <= 2));
}

static int
valid_date(int64_t y, int64_t m, int64_t d)
{
    static const int mdays[13] = {0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (y < 1 || y > 9999 || m < 1 || m > 12 || d < 1) {
        return 0;
    }
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return d <= mdays[m] + (m == 2 && leap);
}

/* ---------------------------------------------------------------------------------- */
/* Reading                                                                             */

static inline uint64_t
read_le(const uint8_t *s, Py_ssize_t n)
{
    uint64_t u = 0;
    for (Py_ssize_t j = n - 1; j >= 0; j--) {
        u = u << 8 | s[j];
    }
    return u;
}

static inline uint64_t
read_be(const uint8_t *s, Py_ssize_t n)
{
    uint64_t u = 0;
    for (Py_ssize_t j = 0; j < n; j++) {
        u = u << 8 | s[j];
    }
    return u;
}

/* Why a read stopped: the bytes it needed and where, for the truncation error. */
typedef struct {
    Py_ssize_t need;
    Py_ssize_t at;
} Short;

#define NEED(n)                                  \
    do {                                         \
        if (limit - p < (Py_ssize_t)(n)) {       \
            sh->need = (Py_ssize_t)(n);          \
            sh->at = p;                          \
            return -2;                           \
        }                                        \
    } while (0)

static PyObject *
decimal_value(Decoder *d, Column *c, const uint8_t *raw)
{
    /* Big-endian groups of up to nine digits: a leading partial group, full groups of the
       integral part, full groups of the fraction, a trailing partial group. The sign is the
       top bit inverted; negative values have every bit inverted. */
    uint8_t b[40];
    Py_ssize_t size = c->size;
    memcpy(b, raw, (size_t)size);
    int negative = !(b[0] & 0x80);
    if (negative) {
        for (Py_ssize_t j = 0; j < size; j++) {
            b[j] = (uint8_t)~b[j];
        }
    }
    b[0] ^= 0x80;
    char text[160];
    char *digits = text + 1; /* text[0]: room for the sign */
    int nd = 0;
    const uint8_t *s = b;
    struct {
        int bytes, digits, count;
    } groups[4] = {
        {c->int_rest_bytes, c->int_rest, c->int_rest ? 1 : 0},
        {4, 9, c->int_full},
        {4, 9, c->frac_full},
        {c->frac_rest_bytes, c->frac_rest, c->frac_rest ? 1 : 0},
    };
    for (int g = 0; g < 4; g++) {
        for (int k = 0; k < groups[g].count; k++) {
            uint32_t v = (uint32_t)read_be(s, groups[g].bytes);
            s += groups[g].bytes;
            int width = groups[g].digits;
            if (v >= POW10[width]) {
                /* Not a digit group (a corrupt value): the Python reader's arithmetic. */
                PyObject *bytes = PyBytes_FromStringAndSize((const char *)raw, size);
                if (bytes == NULL) {
                    return NULL;
                }
                PyObject *value = PyObject_CallOneArg(c->extra, bytes);
                Py_DECREF(bytes);
                return value;
            }
            for (int j = width - 1; j >= 0; j--) {
                digits[nd + j] = (char)('0' + v % 10);
                v /= 10;
            }
            nd += width;
        }
    }
    /* str() of the digits' integer: no leading zeros, "0" for zero. */
    int first = 0;
    while (first < nd - 1 && digits[first] == '0') {
        first++;
    }
    if (nd == 0) {
        digits[0] = '0';
        nd = 1;
    }
    char *start = digits + first;
    Py_ssize_t len = nd - first;
    if (negative) {
        *--start = '-';
        len++;
    }
    if (c->mode) {
        len += sprintf(start + len, "E-%d", (int)c->mode);
    }
    PyObject *str = PyUnicode_New(len, 127);
    if (str == NULL) {
        return NULL;
    }
    memcpy(PyUnicode_1BYTE_DATA(str), start, (size_t)len);
    PyObject *value = PyObject_CallOneArg(d->decimal, str);
    Py_DECREF(str);
    return value;
}

static PyObject *
text_value(Column *c, const uint8_t *s, Py_ssize_t n)
{
    switch (c->text) {
    case T_UTF8:
        return PyUnicode_DecodeUTF8((const char *)s, n, "replace");
    case T_CHARMAP:
        if (c->ascii_table) {
            Py_ssize_t j = 0;
            while (j < n && s[j] < 0x80) {
                j++;
            }
            if (j == n) {
                PyObject *str = PyUnicode_New(n, 127);
                if (str != NULL) {
                    memcpy(PyUnicode_1BYTE_DATA(str), s, (size_t)n);
                }
                return str;
            }
        }
        return PyUnicode_DecodeCharmap((const char *)s, n, c->table, "replace");
    case T_CODEC:
        return PyUnicode_Decode((const char *)s, n, c->codec_name, "replace");
    default:
        return PyBytes_FromStringAndSize((const char *)s, n);
    }
}

static PyObject *
set_value(Column *c, uint64_t bits)
{
    PyObject *labels = c->extra;
    Py_ssize_t n = PyTuple_GET_SIZE(labels);
    PyObject *picked = PyList_New(0);
    if (picked == NULL) {
        return NULL;
    }
    for (Py_ssize_t k = 0; k < n && k < 64; k++) {
        if (bits >> k & 1) {
            if (PyList_Append(picked, PyTuple_GET_ITEM(labels, k)) < 0) {
                Py_DECREF(picked);
                return NULL;
            }
        }
    }
    PyObject *comma = PyUnicode_FromStringAndSize(",", 1);
    if (comma == NULL) {
        Py_DECREF(picked);
        return NULL;
    }
    PyObject *value = PyUnicode_Join(comma, picked);
    Py_DECREF(comma);
    Py_DECREF(picked);
    return value;
}

static PyObject *
time2_value(int64_t packed)
{
    int negative = packed < 0;
    if (negative) {
        packed = -packed;
    }
    int64_t hms = packed >> 24;
    int64_t micros = packed & 0xFFFFFF;
    int64_t total = ((((hms >> 12) & 0x3FF) * 60 + ((hms >> 6) & 63)) * 60 + (hms & 63))
                        * 1000000 + micros;
    if (negative) {
        total = -total;
    }
    int64_t day = INT64_C(86400000000);
    int64_t days = floordiv(total, day);
    int64_t rest = total - days * day;
    return PyDelta_FromDSU((int)days, (int)(rest / 1000000), (int)(rest % 1000000));
}

/* Reads column c at *pp (out NULL: skips it). 0: done; -1: exception set; -2: truncated. */
static int
read_column(Decoder *d, Column *c, const uint8_t *buf, Py_ssize_t *pp, Py_ssize_t limit,
            PyObject **out, Short *sh)
{
    Py_ssize_t p = *pp;
    const uint8_t *s = buf + p;
    PyObject *v = NULL;
    switch (c->kind) {
    case K_INT: {
        Py_ssize_t size = c->size;
        NEED(size);
        *pp = p + size;
        if (out == NULL) {
            return 0;
        }
        uint64_t u = size == 1 ? s[0] : read_le(s, size);
        if (c->param) {
            int bits = (int)size * 8;
            if (bits < 64 && (u >> (bits - 1) & 1)) {
                u |= ~((UINT64_C(1) << bits) - 1);
            }
            v = PyLong_FromLongLong((long long)(int64_t)u);
        }
        else {
            v = PyLong_FromUnsignedLongLong(u);
        }
        break;
    }
    case K_FLOAT:
    case K_DOUBLE: {
        Py_ssize_t size = c->kind == K_FLOAT ? 4 : 8;
        NEED(size);
        *pp = p + size;
        if (out == NULL) {
            return 0;
        }
        double x = size == 4 ? PyFloat_Unpack4((const char *)s, 1)
                             : PyFloat_Unpack8((const char *)s, 1);
        if (x == -1.0 && PyErr_Occurred()) {
            return -1;
        }
        v = PyFloat_FromDouble(x);
        break;
    }
    case K_YEAR:
        NEED(1);
        *pp = p + 1;
        if (out == NULL) {
            return 0;
        }
        v = PyLong_FromLong(s[0] ? s[0] + 1900 : 0);
        break;
    case K_DECIMAL:
        NEED(c->size);
        *pp = p + c->size;
        if (out == NULL) {
            return 0;
        }
        v = decimal_value(d, c, s);
        break;
    case K_STRING:
    case K_CALL: {
        Py_ssize_t prefix = c->size;
        NEED(prefix);
        uint64_t n = read_le(s, prefix);
        if ((uint64_t)(limit - p - prefix) < n) {
            sh->need = prefix + (Py_ssize_t)n;
            sh->at = p;
            return -2;
        }
        *pp = p + prefix + (Py_ssize_t)n;
        if (out == NULL) {
            return 0;
        }
        if (c->kind == K_STRING) {
            v = text_value(c, s + prefix, (Py_ssize_t)n);
        }
        else {
            PyObject *raw = PyBytes_FromStringAndSize((const char *)s + prefix, (Py_ssize_t)n);
            if (raw == NULL) {
                return -1;
            }
            v = PyObject_CallOneArg(c->extra, raw);
            Py_DECREF(raw);
        }
        break;
    }
    case K_ENUM: {
        NEED(c->size);
        *pp = p + c->size;
        if (out == NULL) {
            return 0;
        }
        Py_ssize_t index = (Py_ssize_t)read_le(s, c->size);
        if (index >= PyTuple_GET_SIZE(c->extra)) {
            PyErr_Format(PyExc_ValueError,
                         "row image of %U: ENUM column %R has %zd labels, the row holds "
                         "label number %zd",
                         d->where, c->name, PyTuple_GET_SIZE(c->extra) - 1, index);
            return -1;
        }
        v = Py_NewRef(PyTuple_GET_ITEM(c->extra, index));
        break;
    }
    case K_SET:
        NEED(c->size);
        *pp = p + c->size;
        if (out == NULL) {
            return 0;
        }
        v = set_value(c, read_le(s, c->size));
        break;
    case K_BIT:
        NEED(c->size);
        *pp = p + c->size;
        if (out == NULL) {
            return 0;
        }
        v = PyBytes_FromStringAndSize((const char *)s, c->size);
        break;
    case K_DATE: {
        NEED(3);
        *pp = p + 3;
        if (out == NULL) {
            return 0;
        }
        uint32_t x = (uint32_t)read_le(s, 3);
        int y = (int)(x >> 9), m = (int)(x >> 5 & 15), dd = (int)(x & 31);
        if (c->mode) {
            /* Days since the epoch; zero dates (a zero month or day) have none. */
            v = (m && dd) ? PyLong_FromLongLong(civil_days(y, m, dd)) : Py_NewRef(Py_None);
        }
        else {
            v = valid_date(y, m, dd) ? PyDate_FromDate(y, m, dd) : Py_NewRef(Py_None);
        }
        break;
    }
    case K_DATETIME2: {
        int fsp = (int)c->param;
        Py_ssize_t nf = FRAC_BYTES[fsp];
        NEED(5 + nf);
        *pp = p + 5 + nf;
        if (out == NULL) {
            return 0;
        }
        int64_t x = (int64_t)read_be(s, 5) - INT64_C(0x8000000000);
        int64_t f = nf ? (int64_t)read_be(s + 5, nf) * FRAC_SCALE[fsp] : 0;
        int64_t ymd = floordiv(x, INT64_C(1) << 17);
        int64_t hms = (int64_t)((uint64_t)x & 0x1FFFF);
        int64_t ym = floordiv(ymd, 32);
        int64_t mo = floormod(ym, 13);
        int64_t dd = (int64_t)((uint64_t)ymd & 31);
        if (c->mode) {
            if (!(mo && dd)) {
                v = Py_NewRef(Py_None);
                break;
            }
            int64_t days = civil_days(floordiv(ym, 13), mo, dd);
            int64_t secs = ((days * 24 + (hms >> 12)) * 60 + ((hms >> 6) & 63)) * 60 + (hms & 63);
            v = PyLong_FromLongLong(c->mode == 1 ? secs * 1000 + f / 1000 : secs * 1000000 + f);
        }
        else {
            int64_t y = floordiv(ym, 13);
            int64_t hh = hms >> 12, mi = (hms >> 6) & 63, ss = hms & 63;
            if (valid_date(y, mo, dd) && hh < 24 && mi < 60 && ss < 60 && f < 1000000) {
                v = PyDateTime_FromDateAndTime((int)y, (int)mo, (int)dd, (int)hh, (int)mi,
                                               (int)ss, (int)f);
            }
            else {
                v = Py_NewRef(Py_None);
            }
        }
        break;
    }
    case K_TIMESTAMP2: {
        int fsp = (int)c->param;
        Py_ssize_t nf = FRAC_BYTES[fsp];
        NEED(4 + nf);
        *pp = p + 4 + nf;
        if (out == NULL) {
            return 0;
        }
        int64_t secs = (int64_t)read_be(s, 4);
        int64_t f = nf ? (int64_t)read_be(s + 4, nf) * FRAC_SCALE[fsp] : 0;
        if (secs == 0 && f == 0) {
            v = Py_NewRef(Py_None); /* the zero timestamp */
            break;
        }
        /* 1970-01-01 plus the seconds and microseconds, as datetime + timedelta does. */
        int64_t total = secs * 1000000 + f;
        int64_t day = INT64_C(86400000000);
        int64_t days = total / day, rest = total % day;
        int y, m, dd;
        civil_from_days(days, &y, &m, &dd);
        int64_t sod = rest / 1000000;
        v = PyDateTime_FromDateAndTime(y, m, dd, (int)(sod / 3600), (int)(sod / 60 % 60),
                                       (int)(sod % 60), (int)(rest % 1000000));
        break;
    }
    case K_TIME2: {
        int fsp = (int)c->param;
        int64_t packed;
        if (fsp >= 5) {
            NEED(6);
            *pp = p + 6;
            if (out == NULL) {
                return 0;
            }
            packed = (int64_t)read_be(s, 6) - INT64_C(0x800000000000);
        }
        else {
            Py_ssize_t nf = FRAC_BYTES[fsp];
            NEED(3 + nf);
            *pp = p + 3 + nf;
            if (out == NULL) {
                return 0;
            }
            int64_t x = (int64_t)read_be(s, 3) - 0x800000;
            int64_t f = 0;
            /* The fraction is unsigned: a negative time's is stored as its complement. */
            if (nf == 1) {
                f = s[3];
                if (x < 0 && f) {
                    x += 1;
                    f -= 0x100;
                }
                f *= 10000;
            }
            else if (nf == 2) {
                f = (int64_t)read_be(s + 3, 2);
                if (x < 0 && f) {
                    x += 1;
                    f -= 0x10000;
                }
                f *= 100;
            }
            packed = x * (INT64_C(1) << 24) + f;
        }
        v = time2_value(packed);
        break;
    }
    default:
        PyErr_SetString(PyExc_SystemError, "RowDecoder: unknown column kind");
        return -1;
    }
    if (v == NULL) {
        return -1;
    }
    *out = v;
    return 0;
}

static PyObject *
truncated(Decoder *d, Py_ssize_t row, Py_ssize_t column, Short *sh, Py_ssize_t limit)
{
    if (column < 0) {
        PyErr_Format(PyExc_ValueError,
                     "row image of %U is truncated: row %zd's null bitmap needs %zd bytes at "
                     "byte %zd, the rows end at byte %zd",
                     d->where, row, sh->need, sh->at, limit);
    }
    else {
        PyErr_Format(PyExc_ValueError,
                     "row image of %U is truncated: row %zd, column %R (#%zd) needs %zd bytes "
                     "at byte %zd, the rows end at byte %zd",
                     d->where, row, d->cols[column].name, column, sh->need, sh->at, limit);
    }
    return NULL;
}

static PyObject *
decode_rows(Decoder *d, PyObject *data, Py_ssize_t p, Py_ssize_t end)
{
    const uint8_t *buf = (const uint8_t *)PyBytes_AS_STRING(data);
    Py_ssize_t len = PyBytes_GET_SIZE(data);
    if (p < 0 || end < 0) {
        PyErr_Format(PyExc_ValueError, "row image of %U: negative offsets %zd, %zd", d->where,
                     p, end);
        return NULL;
    }
    Py_ssize_t limit = end < len ? end : len;
    Py_ssize_t nb = d->nbitmap, width = d->width, ncols = d->ncols;
    if (ncols == 0 && p < end) {
        /* rows of no bytes: the range would never be consumed */
        PyErr_Format(PyExc_ValueError, "row image of %U: a table map without columns",
                     d->where);
        return NULL;
    }
    PyObject *rows = PyList_New(0);
    if (rows == NULL) {
        return NULL;
    }
    Short sh;
    for (Py_ssize_t nrow = 0; p < end; nrow++) {
        if (limit - p < nb) {
            sh.need = nb;
            sh.at = p;
            truncated(d, nrow, -1, &sh, limit);
            goto fail;
        }
        const uint8_t *nulls = buf + p;
        p += nb;
        PyObject *row = PyList_New(width);
        if (row == NULL) {
            goto fail;
        }
        for (Py_ssize_t i = 0; i < ncols; i++) {
            Column *c = &d->cols[i];
            if (nulls[i >> 3] >> (i & 7) & 1) {
                if (c->slot >= 0) {
                    PyList_SET_ITEM(row, c->slot, Py_NewRef(Py_None));
                }
                continue;
            }
            PyObject *value = NULL;
            int rc = read_column(d, c, buf, &p, limit, c->slot >= 0 ? &value : NULL, &sh);
            if (rc < 0) {
                if (rc == -2) {
                    truncated(d, nrow, i, &sh, limit);
                }
                Py_DECREF(row);
                goto fail;
            }
            if (value != NULL) {
                PyList_SET_ITEM(row, c->slot, value);
            }
        }
        for (Py_ssize_t k = 0; k < d->nconv; k++) {
            Py_ssize_t slot = d->conv_slots[k];
            PyObject *old = PyList_GET_ITEM(row, slot);
            PyObject *value = PyObject_CallOneArg(d->conv_fns[k], old);
            if (value == NULL) {
                Py_DECREF(row);
                goto fail;
            }
            PyList_SET_ITEM(row, slot, value);
            Py_DECREF(old);
        }
        int rc = PyList_Append(rows, row);
        Py_DECREF(row);
        if (rc < 0) {
            goto fail;
        }
    }
    return rows;
fail:
    Py_DECREF(rows);
    return NULL;
}

static PyObject *
decoder_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (nargs != 3 || (kwnames != NULL && PyTuple_GET_SIZE(kwnames) > 0)) {
        PyErr_SetString(PyExc_TypeError, "RowDecoder takes (data, p, end) by position");
        return NULL;
    }
    if (!PyBytes_Check(args[0])) {
        PyErr_Format(PyExc_TypeError, "RowDecoder: data must be bytes, not %.100s",
                     Py_TYPE(args[0])->tp_name);
        return NULL;
    }
    Py_ssize_t p = PyLong_AsSsize_t(args[1]);
    if (p == -1 && PyErr_Occurred()) {
        return NULL;
    }
    Py_ssize_t end = PyLong_AsSsize_t(args[2]);
    if (end == -1 && PyErr_Occurred()) {
        return NULL;
    }
    return decode_rows((Decoder *)self, args[0], p, end);
}

/* ---------------------------------------------------------------------------------- */
/* The type                                                                            */

static int
decoder_traverse(Decoder *self, visitproc visit, void *arg)
{
    for (Py_ssize_t i = 0; self->cols != NULL && i < self->ncols; i++) {
        Column *c = &self->cols[i];
        Py_VISIT(c->codec);
        Py_VISIT(c->table);
        Py_VISIT(c->extra);
        Py_VISIT(c->convert);
        Py_VISIT(c->name);
    }
    Py_VISIT(self->decimal);
    Py_VISIT(self->where);
    return 0;
}

static int
decoder_clear(Decoder *self)
{
    for (Py_ssize_t i = 0; self->cols != NULL && i < self->ncols; i++) {
        Column *c = &self->cols[i];
        Py_CLEAR(c->codec);
        Py_CLEAR(c->table);
        Py_CLEAR(c->extra);
        Py_CLEAR(c->convert);
        Py_CLEAR(c->name);
    }
    self->nconv = 0; /* conv_fns are borrowed from the columns */
    Py_CLEAR(self->decimal);
    Py_CLEAR(self->where);
    return 0;
}

static void
decoder_dealloc(Decoder *self)
{
    PyObject_GC_UnTrack(self);
    decoder_clear(self);
    PyMem_Free(self->cols);
    PyMem_Free(self->conv_slots);
    PyMem_Free(self->conv_fns);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int
bad_plan(Py_ssize_t i, const char *what)
{
    PyErr_Format(PyExc_ValueError, "RowDecoder: column #%zd: %s", i, what);
    return -1;
}

/* Fills c from the plan tuple of column i. */
static int
parse_column(Column *c, Py_ssize_t i, PyObject *item, Py_ssize_t width)
{
    PyObject *codec, *table, *extra, *convert, *name;
    if (!PyTuple_Check(item)) {
        return bad_plan(i, "the plan of a column must be a tuple");
    }
    int kind;
    if (!PyArg_ParseTuple(item, "innnOOOnOU;RowDecoder column plan", &kind, &c->size,
                          &c->param, &c->mode, &codec, &table, &extra, &c->slot, &convert,
                          &name)) {
        return -1;
    }
    c->kind = kind;
    c->name = Py_NewRef(name);
    if (kind < 1 || kind > K_LAST) {
        return bad_plan(i, "unknown kind");
    }
    if (c->slot < -1 || c->slot >= width) {
        return bad_plan(i, "slot out of range");
    }
    if (convert != Py_None) {
        if (!PyCallable_Check(convert)) {
            return bad_plan(i, "the converter must be callable or None");
        }
        c->convert = Py_NewRef(convert);
    }
    if (extra != Py_None) {
        c->extra = Py_NewRef(extra);
    }
    Py_ssize_t size = c->size;
    switch (kind) {
    case K_INT:
        if (!(size == 1 || size == 2 || size == 3 || size == 4 || size == 8)) {
            return bad_plan(i, "integer size must be 1, 2, 3, 4 or 8");
        }
        break;
    case K_STRING:
    case K_CALL:
        if (size < 1 || size > 4) {
            return bad_plan(i, "length prefix must be 1 to 4 bytes");
        }
        if (kind == K_CALL && (c->extra == NULL || !PyCallable_Check(c->extra))) {
            return bad_plan(i, "a call column needs a callable");
        }
        if (kind == K_STRING) {
            if (table != Py_None) {
                if (!PyUnicode_Check(table) || PyUnicode_GET_LENGTH(table) != 256) {
                    return bad_plan(i, "the charmap table must be a str of 256 characters");
                }
                c->table = Py_NewRef(table);
                c->text = T_CHARMAP;
                c->ascii_table = 1;
                for (Py_UCS4 ch = 0; ch < 128; ch++) {
                    if (PyUnicode_READ_CHAR(table, ch) != ch) {
                        c->ascii_table = 0;
                        break;
                    }
                }
            }
            else if (codec != Py_None) {
                if (!PyUnicode_Check(codec)) {
                    return bad_plan(i, "the codec must be a str or None");
                }
                c->codec = Py_NewRef(codec);
                c->codec_name = PyUnicode_AsUTF8(codec);
                if (c->codec_name == NULL) {
                    return -1;
                }
                c->text = strcmp(c->codec_name, "utf-8") == 0 ? T_UTF8 : T_CODEC;
            }
            else {
                c->text = T_BYTES;
            }
        }
        break;
    case K_ENUM:
    case K_SET:
        if (kind == K_ENUM ? (size < 1 || size > 2) : (size < 1 || size > 8)) {
            return bad_plan(i, "ENUM size must be 1 or 2, SET size 1 to 8");
        }
        if (c->extra == NULL || !PyTuple_Check(c->extra)) {
            return bad_plan(i, "ENUM and SET columns need their labels as a tuple");
        }
        break;
    case K_BIT:
        if (size < 1 || size > 8) {
            return bad_plan(i, "BIT size must be 1 to 8 bytes");
        }
        break;
    case K_DECIMAL: {
        Py_ssize_t precision = c->param, scale = c->mode;
        if (precision < 1 || precision > 81 || scale < 0 || scale > precision) {
            return bad_plan(i, "DECIMAL precision must be 1 to 81, scale 0 to precision");
        }
        Py_ssize_t intg = precision - scale;
        c->int_full = (int)(intg / 9);
        c->int_rest = (int)(intg % 9);
        c->frac_full = (int)(scale / 9);
        c->frac_rest = (int)(scale % 9);
        c->int_rest_bytes = DIG2BYTES[c->int_rest];
        c->frac_rest_bytes = DIG2BYTES[c->frac_rest];
        if (size != c->int_full * 4 + c->int_rest_bytes + c->frac_full * 4 + c->frac_rest_bytes) {
            return bad_plan(i, "DECIMAL size does not match its precision and scale");
        }
        if (c->extra == NULL || !PyCallable_Check(c->extra)) {
            return bad_plan(i, "a DECIMAL column needs its fallback reader");
        }
        break;
    }
    case K_DATE:
        if (c->mode < 0 || c->mode > 1) {
            return bad_plan(i, "DATE mode must be 0 or 1");
        }
        break;
    case K_DATETIME2:
    case K_TIMESTAMP2:
    case K_TIME2:
        if (c->param < 0 || c->param > 6) {
            return bad_plan(i, "fsp must be 0 to 6");
        }
        if (kind == K_DATETIME2 && (c->mode < 0 || c->mode > 2)) {
            return bad_plan(i, "DATETIME2 mode must be 0, 1 or 2");
        }
        break;
    default:
        break;
    }
    return 0;
}

static PyObject *
decoder_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"columns", "width", "decimal", "where", NULL};
    PyObject *columns, *decimal, *where;
    Py_ssize_t width;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!nOU:RowDecoder", kwlist, &PyTuple_Type,
                                     &columns, &width, &decimal, &where)) {
        return NULL;
    }
    Py_ssize_t ncols = PyTuple_GET_SIZE(columns);
    if (width < 0 || width > ncols) {
        PyErr_SetString(PyExc_ValueError, "RowDecoder: width must be 0 to the column count");
        return NULL;
    }
    Decoder *self = (Decoder *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    self->vectorcall = decoder_vectorcall;
    self->decimal = Py_NewRef(decimal);
    self->where = Py_NewRef(where);
    self->width = width;
    self->nbitmap = (ncols + 7) / 8;
    self->cols = PyMem_Calloc((size_t)(ncols ? ncols : 1), sizeof(Column));
    self->conv_slots = PyMem_Calloc((size_t)(width ? width : 1), sizeof(Py_ssize_t));
    self->conv_fns = PyMem_Calloc((size_t)(width ? width : 1), sizeof(PyObject *));
    char *seen = PyMem_Calloc((size_t)(width ? width : 1), 1);
    if (self->cols == NULL || self->conv_slots == NULL || self->conv_fns == NULL ||
        seen == NULL) {
        PyMem_Free(seen);
        PyErr_NoMemory();
        goto fail;
    }
    for (Py_ssize_t i = 0; i < ncols; i++) {
        Column *c = &self->cols[i];
        self->ncols = i + 1; /* so that clear() sees what is filled */
        if (parse_column(c, i, PyTuple_GET_ITEM(columns, i), width) < 0) {
            PyMem_Free(seen);
            goto fail;
        }
        if (c->slot >= 0) {
            if (seen[c->slot]) {
                PyMem_Free(seen);
                bad_plan(i, "slot already taken by another column");
                goto fail;
            }
            seen[c->slot] = 1;
        }
    }
    for (Py_ssize_t s = 0; s < width; s++) {
        if (!seen[s]) {
            PyMem_Free(seen);
            PyErr_Format(PyExc_ValueError, "RowDecoder: no column fills slot %zd", s);
            goto fail;
        }
    }
    PyMem_Free(seen);
    /* Converters run in slot order, as the generated code calls them. */
    for (Py_ssize_t s = 0; s < width; s++) {
        for (Py_ssize_t i = 0; i < ncols; i++) {
            Column *c = &self->cols[i];
            if (c->slot == s && c->convert != NULL) {
                self->conv_slots[self->nconv] = s;
                self->conv_fns[self->nconv] = c->convert;
                self->nconv++;
            }
        }
    }
    return (PyObject *)self;
fail:
    Py_DECREF(self);
    return NULL;
}

static PyObject *
decoder_repr(Decoder *self)
{
    return PyUnicode_FromFormat("<RowDecoder of %U: %zd columns, %zd per row>", self->where,
                                self->ncols, self->width);
}

static PyTypeObject DecoderType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "kconnect_speedups._mysql.RowDecoder",
    .tp_basicsize = sizeof(Decoder),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "RowDecoder(columns, width, decimal, where)\n\n"
              "The decoder of one binlog table map: called as decoder(data, p, end), the "
              "list of rows (each a list of width values) of the row images in "
              "data[p:end]. columns: per table column, (kind, size, param, mode, codec, "
              "table, extra, slot, convert, name); see _mysql.pyi.",
    .tp_new = decoder_new,
    .tp_dealloc = (destructor)decoder_dealloc,
    .tp_traverse = (traverseproc)decoder_traverse,
    .tp_clear = (inquiry)decoder_clear,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(Decoder, vectorcall),
    .tp_repr = (reprfunc)decoder_repr,
};

/* ---------------------------------------------------------------------------------- */
/* PlainCreates                                                                        */

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyTypeObject *struct_type;  /* kconnect_sdk.Struct */
    PyTypeObject *record_type;  /* kconnect_sdk.SourceRecord, a tuple subclass */
    PyObject *no_headers;       /* Headers.EMPTY */
    Py_ssize_t schema_offset;   /* where Struct's slots live in its instances */
    Py_ssize_t values_offset;
    Py_ssize_t row_field;       /* the source block's "row" field */
} Creates;

static PyObject *STR_ROW; /* "row", the offset's key */
static PyObject *STR_C;   /* "c", the envelope's op */

/* The instance offset of a writable object slot of type (a __slots__ member). */
static Py_ssize_t
slot_offset(PyTypeObject *type, const char *name)
{
    PyObject *descr = PyObject_GetAttrString((PyObject *)type, name);
    if (descr == NULL) {
        return -1;
    }
    Py_ssize_t offset = -1;
    if (Py_IS_TYPE(descr, &PyMemberDescr_Type)) {
        PyMemberDef *member = ((PyMemberDescrObject *)descr)->d_member;
        if (member->type == T_OBJECT_EX && !(member->flags & READONLY)) {
            offset = member->offset;
        }
    }
    Py_DECREF(descr);
    if (offset < 0) {
        PyErr_Format(PyExc_TypeError, "PlainCreates: %s.%s is not a __slots__ slot",
                     type->tp_name, name);
    }
    return offset;
}

/* A Struct with schema and _values set, as struct_maker makes it (references stolen; NULL on
 * error). */
static PyObject *
new_struct(Creates *self, PyObject *schema, PyObject *values)
{
    if (values == NULL) {
        return NULL;
    }
    PyObject *obj = self->struct_type->tp_alloc(self->struct_type, 0);
    if (obj == NULL) {
        Py_DECREF(values);
        return NULL;
    }
    *(PyObject **)((char *)obj + self->schema_offset) = Py_NewRef(schema);
    *(PyObject **)((char *)obj + self->values_offset) = values;
    return obj;
}

static PyObject *
creates_vectorcall(PyObject *op, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Creates *self = (Creates *)op;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (nargs != 11 || (kwnames != NULL && PyTuple_GET_SIZE(kwnames) > 0)) {
        PyErr_SetString(PyExc_TypeError,
                        "PlainCreates takes (out, rows, start, n, base_off, base_source, "
                        "schemas, key_index, topic, partition, now) by position");
        return NULL;
    }
    PyObject *out = args[0], *rows = args[1], *base_off = args[4], *base_source = args[5];
    PyObject *schemas = args[6], *topic = args[8], *partition = args[9], *now = args[10];
    Py_ssize_t start = PyLong_AsSsize_t(args[2]);
    if (start == -1 && PyErr_Occurred()) {
        return NULL;
    }
    Py_ssize_t n = PyLong_AsSsize_t(args[3]);
    if (n == -1 && PyErr_Occurred()) {
        return NULL;
    }
    Py_ssize_t key_index = PyLong_AsSsize_t(args[7]);
    if (key_index == -1 && PyErr_Occurred()) {
        return NULL;
    }
    if (!PyList_Check(out) || !PyList_Check(rows) || !PyDict_Check(base_off) ||
        !PyList_Check(base_source) || !PyTuple_Check(schemas) ||
        PyTuple_GET_SIZE(schemas) != 4 || !PyTuple_Check(now) || PyTuple_GET_SIZE(now) != 3) {
        PyErr_SetString(PyExc_TypeError,
                        "PlainCreates: out, rows and base_source must be lists, base_off a "
                        "dict, schemas a 4-tuple and now a 3-tuple");
        return NULL;
    }
    if (start < 0 || n > PyList_GET_SIZE(rows) || key_index < 0 ||
        self->row_field >= PyList_GET_SIZE(base_source)) {
        PyErr_SetString(PyExc_IndexError, "PlainCreates: row range, key index or source "
                                          "row field out of range");
        return NULL;
    }
    PyObject *source_schema = PyTuple_GET_ITEM(schemas, 0);
    PyObject *value_schema = PyTuple_GET_ITEM(schemas, 1);
    PyObject *env_schema = PyTuple_GET_ITEM(schemas, 2);
    PyObject *key_schema = PyTuple_GET_ITEM(schemas, 3);
    Py_ssize_t nsource = PyList_GET_SIZE(base_source);
    for (Py_ssize_t i = start; i < n; i++) {
        PyObject *row = PyList_GET_ITEM(rows, i);
        if (!PyList_Check(row) || key_index >= PyList_GET_SIZE(row)) {
            PyErr_Format(PyExc_TypeError,
                         "PlainCreates: row %zd is not a list with the key at %zd", i,
                         key_index);
            return NULL;
        }
        /* source: a copy of the event's block, with the row's index */
        PyObject *values = PyList_GetSlice(base_source, 0, nsource);
        if (values != NULL) {
            PyObject *index = PyLong_FromSsize_t(i);
            if (index == NULL) {
                Py_CLEAR(values);
            }
            else {
                PyObject *shared = PyList_GET_ITEM(values, self->row_field);
                PyList_SET_ITEM(values, self->row_field, index);
                Py_DECREF(shared);
            }
        }
        PyObject *source = new_struct(self, source_schema, values);
        if (source == NULL) {
            return NULL;
        }
        Py_INCREF(row);
        PyObject *after = new_struct(self, value_schema, row);
        if (after == NULL) {
            Py_DECREF(source);
            return NULL;
        }
        PyObject *env_values = PyList_New(8);
        if (env_values == NULL) {
            Py_DECREF(source);
            Py_DECREF(after);
            return NULL;
        }
        PyList_SET_ITEM(env_values, 0, Py_NewRef(Py_None));
        PyList_SET_ITEM(env_values, 1, after);
        PyList_SET_ITEM(env_values, 2, source);
        PyList_SET_ITEM(env_values, 3, Py_NewRef(Py_None));
        PyList_SET_ITEM(env_values, 4, Py_NewRef(STR_C));
        for (Py_ssize_t k = 0; k < 3; k++) {
            PyList_SET_ITEM(env_values, 5 + k, Py_NewRef(PyTuple_GET_ITEM(now, k)));
        }
        PyObject *envelope = new_struct(self, env_schema, env_values);
        if (envelope == NULL) {
            return NULL;
        }
        PyObject *key_values = PyList_New(1);
        if (key_values != NULL) {
            PyList_SET_ITEM(key_values, 0, Py_NewRef(PyList_GET_ITEM(row, key_index)));
        }
        PyObject *key = new_struct(self, key_schema, key_values);
        if (key == NULL) {
            Py_DECREF(envelope);
            return NULL;
        }
        /* the offset: the event's, with the rows done so far */
        PyObject *off = PyDict_Copy(base_off);
        PyObject *done = off == NULL ? NULL : PyLong_FromSsize_t(i + 1);
        int rc = done == NULL ? -1 : PyDict_SetItem(off, STR_ROW, done);
        Py_XDECREF(done);
        if (rc < 0) {
            Py_XDECREF(off);
            Py_DECREF(envelope);
            Py_DECREF(key);
            return NULL;
        }
        /* SourceRecord's fields in their declared order, as record_maker(cls) takes them */
        PyObject *record = self->record_type->tp_alloc(self->record_type, 10);
        if (record == NULL) {
            Py_DECREF(off);
            Py_DECREF(envelope);
            Py_DECREF(key);
            return NULL;
        }
        PyTuple_SET_ITEM(record, 0, Py_NewRef(topic));
        PyTuple_SET_ITEM(record, 1, Py_NewRef(Py_None));
        PyTuple_SET_ITEM(record, 2, Py_NewRef(key_schema));
        PyTuple_SET_ITEM(record, 3, key);
        PyTuple_SET_ITEM(record, 4, Py_NewRef(env_schema));
        PyTuple_SET_ITEM(record, 5, envelope);
        PyTuple_SET_ITEM(record, 6, Py_NewRef(Py_None));
        PyTuple_SET_ITEM(record, 7, Py_NewRef(self->no_headers));
        PyTuple_SET_ITEM(record, 8, Py_NewRef(partition));
        PyTuple_SET_ITEM(record, 9, off);
        rc = PyList_Append(out, record);
        Py_DECREF(record);
        if (rc < 0) {
            return NULL;
        }
    }
    Py_RETURN_NONE;
}

static PyObject *
creates_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"struct_type", "record_type", "no_headers", "row_field", NULL};
    PyObject *struct_type, *record_type, *no_headers;
    Py_ssize_t row_field;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!O!On:PlainCreates", kwlist, &PyType_Type,
                                     &struct_type, &PyType_Type, &record_type, &no_headers,
                                     &row_field)) {
        return NULL;
    }
    if (!PyType_IsSubtype((PyTypeObject *)record_type, &PyTuple_Type)) {
        PyErr_SetString(PyExc_TypeError, "PlainCreates: record_type must be a tuple subclass");
        return NULL;
    }
    if (row_field < 0) {
        PyErr_SetString(PyExc_ValueError, "PlainCreates: row_field must be >= 0");
        return NULL;
    }
    Py_ssize_t schema_offset = slot_offset((PyTypeObject *)struct_type, "schema");
    if (schema_offset < 0) {
        return NULL;
    }
    Py_ssize_t values_offset = slot_offset((PyTypeObject *)struct_type, "_values");
    if (values_offset < 0) {
        return NULL;
    }
    Creates *self = (Creates *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    self->vectorcall = creates_vectorcall;
    self->struct_type = (PyTypeObject *)Py_NewRef(struct_type);
    self->record_type = (PyTypeObject *)Py_NewRef(record_type);
    self->no_headers = Py_NewRef(no_headers);
    self->schema_offset = schema_offset;
    self->values_offset = values_offset;
    self->row_field = row_field;
    return (PyObject *)self;
}

static int
creates_traverse(Creates *self, visitproc visit, void *arg)
{
    Py_VISIT(self->struct_type);
    Py_VISIT(self->record_type);
    Py_VISIT(self->no_headers);
    return 0;
}

static int
creates_clear(Creates *self)
{
    Py_CLEAR(self->struct_type);
    Py_CLEAR(self->record_type);
    Py_CLEAR(self->no_headers);
    return 0;
}

static void
creates_dealloc(Creates *self)
{
    PyObject_GC_UnTrack(self);
    creates_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyTypeObject CreatesType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "kconnect_speedups._mysql.PlainCreates",
    .tp_basicsize = sizeof(Creates),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "PlainCreates(struct_type, record_type, no_headers, row_field)\n\n"
              "Called as creates(out, rows, start, n, base_off, base_source, schemas, "
              "key_index, topic, partition, now): appends to out the SourceRecord of each "
              "inserted row rows[start:n], as kconnect_connector_mysql._task._plain_creates "
              "builds them.",
    .tp_new = creates_new,
    .tp_dealloc = (destructor)creates_dealloc,
    .tp_traverse = (traverseproc)creates_traverse,
    .tp_clear = (inquiry)creates_clear,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(Creates, vectorcall),
};

/* ---------------------------------------------------------------------------------- */
/* Snapshot values: DATE / DATETIME text of the text protocol as Debezium's numbers       */

/* The number of the n ASCII digits at s, or -1 when one is not a digit. */
static inline int64_t
digits_at(const char *s, int n)
{
    int64_t v = 0;
    for (int i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i] - '0';
        if (c > 9) {
            return -1;
        }
        v = v * 10 + c;
    }
    return v;
}

enum { TEXT_DAYS, TEXT_MILLIS, TEXT_MICROS };

/*
 * "YYYY-MM-DD[ HH:MM:SS[.ffffff]]" as days, epoch milliseconds or microseconds; None for a
 * zero date part, as kconnect_connector_mysql._snapshot_rows.text_days / text_millis /
 * text_micros. Any other text is handed to fallback (those Python functions), so both give
 * the same answer.
 */
static PyObject *
text_temporal(PyObject *const *args, Py_ssize_t nargs, int unit)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "expected (fallback, value)");
        return NULL;
    }
    PyObject *fallback = args[0], *v = args[1];
    if (v == Py_None) {
        Py_RETURN_NONE;
    }
    if (!PyUnicode_Check(v) || !PyUnicode_IS_ASCII(v)) {
        return PyObject_CallOneArg(fallback, v);
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(v);
    const char *s = (const char *)PyUnicode_1BYTE_DATA(v);
    int64_t y, m, d;
    if (n < 10 || s[4] != '-' || s[7] != '-' || (y = digits_at(s, 4)) < 0 ||
        (m = digits_at(s + 5, 2)) < 0 || (d = digits_at(s + 8, 2)) < 0) {
        return PyObject_CallOneArg(fallback, v);
    }
    if (unit == TEXT_DAYS) {
        if (n != 10) {
            return PyObject_CallOneArg(fallback, v);
        }
        if (!(y && m && d)) {
            Py_RETURN_NONE;
        }
        return PyLong_FromLongLong(civil_days(y, m, d));
    }
    int64_t hh, mi, ss, frac = 0;
    if (n < 19 || n > 26 || s[10] != ' ' || s[13] != ':' || s[16] != ':' ||
        (hh = digits_at(s + 11, 2)) < 0 || (mi = digits_at(s + 14, 2)) < 0 ||
        (ss = digits_at(s + 17, 2)) < 0) {
        return PyObject_CallOneArg(fallback, v);
    }
    if (n > 19) {
        if (s[19] != '.' || n == 20 || (frac = digits_at(s + 20, (int)(n - 20))) < 0) {
            return PyObject_CallOneArg(fallback, v);
        }
        for (Py_ssize_t i = n - 20; i < 6; i++) {
            frac *= 10;
        }
    }
    if (!(y && m && d)) {
        Py_RETURN_NONE;
    }
    int64_t seconds = ((civil_days(y, m, d) * 24 + hh) * 60 + mi) * 60 + ss;
    int64_t micros = seconds * 1000000 + frac;
    return PyLong_FromLongLong(unit == TEXT_MICROS ? micros : floordiv(micros, 1000));
}

static PyObject *
text_days(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    return text_temporal(args, nargs, TEXT_DAYS);
}

static PyObject *
text_millis(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    return text_temporal(args, nargs, TEXT_MILLIS);
}

static PyObject *
text_micros(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    return text_temporal(args, nargs, TEXT_MICROS);
}

/* ---------------------------------------------------------------------------------- */
/* TextRows: the row packets of a text-protocol result set (the snapshot's SELECT)       */

/* What read_many stops at, besides n rows or the end of the bytes: the codes of the
   connector's generated reader (kconnect_connector_mysql._resultset), exported. */
enum { STOP_SPECIAL = 1, STOP_LONG = 2, STOP_BAD_SEQUENCE = 3 };

#define MAX_PACKET 0xFFFFFF /* a packet this long continues in the next one */

/* How a field's bytes become its value, before the column's then. */
enum {
    V_BYTES,      /* no encoding, no converter: the bytes */
    V_TEXT,       /* bytes.decode(encoding) */
    V_INT,        /* converter int, encoding ascii or None: int(bytes) */
    V_FLOAT,      /* converter float, encoding ascii or None: float(bytes) */
    V_CALL_TEXT,  /* converter(bytes.decode(encoding)) */
    V_CALL_BYTES, /* converter(bytes) */
};

/* The decoder PyUnicode_Decode picks for a codec name, called directly (D_CODEC: by name). */
enum { D_CODEC, D_UTF8, D_ASCII, D_LATIN1 };

typedef struct {
    int how;
    int decode;
    PyObject *encoding; /* str, or NULL */
    const char *codec;  /* its UTF-8 (D_CODEC) */
    PyObject *convert;  /* pymysql's converter, or NULL */
    PyObject *then;     /* the caller's callable, or NULL */
} TextColumn;

typedef struct {
    PyObject_HEAD
    Py_ssize_t ncols;
    TextColumn *cols;
} TextRows;

/* Names PyUnicode_Decode itself sends to its UTF-8, ASCII and Latin-1 decoders (it matches
   the name lowercased, punctuation as '_'); any other name goes through it. */
static int
codec_shortcut(const char *name)
{
    static const struct {
        const char *name;
        int decode;
    } names[] = {
        {"utf8", D_UTF8},        {"utf-8", D_UTF8},           {"utf_8", D_UTF8},
        {"ascii", D_ASCII},      {"us-ascii", D_ASCII},       {"us_ascii", D_ASCII},
        {"latin1", D_LATIN1},    {"latin-1", D_LATIN1},       {"latin_1", D_LATIN1},
        {"iso-8859-1", D_LATIN1}, {"iso8859-1", D_LATIN1},    {"iso_8859_1", D_LATIN1},
    };
    for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
        if (PyOS_stricmp(name, names[k].name) == 0) {
            return names[k].decode;
        }
    }
    return D_CODEC;
}

/* bytes.decode(encoding): PyUnicode_Decode, or the decoder it would pick for the name (which
   gives "" for no bytes, as PyUnicode_Decode does; it looks a codec up first only in
   development mode, where these names are found). */
static PyObject *
field_text(TextColumn *c, const char *s, Py_ssize_t n)
{
    switch (c->decode) {
    case D_UTF8:
        return PyUnicode_DecodeUTF8(s, n, NULL);
    case D_ASCII:
        return PyUnicode_DecodeASCII(s, n, NULL);
    case D_LATIN1:
        return PyUnicode_DecodeLatin1(s, n, NULL);
    default:
        return PyUnicode_Decode(s, n, c->codec, NULL);
    }
}

static PyObject *
call_on_bytes(PyObject *fn, const char *s, Py_ssize_t n)
{
    PyObject *raw = PyBytes_FromStringAndSize(s, n);
    if (raw == NULL) {
        return NULL;
    }
    PyObject *value = PyObject_CallOneArg(fn, raw);
    Py_DECREF(raw);
    return value;
}

/* int(bytes) of an INT column: an optional '-' and decimal digits that fit in 64 bits
   here; any other text (spaces, '+', '_', more digits, none) is int's to read or refuse. */
static PyObject *
field_int(TextColumn *c, const char *s, Py_ssize_t n)
{
    Py_ssize_t first = n > 0 && s[0] == '-';
    if (first < n && n - first <= 20) {
        uint64_t u = 0;
        Py_ssize_t j = first;
        for (; j < n; j++) {
            unsigned digit = (unsigned)((unsigned char)s[j] - '0');
            if (digit > 9 || u > (UINT64_MAX - digit) / 10) {
                break;
            }
            u = u * 10 + digit;
        }
        if (j == n) {
            if (!first) {
                return PyLong_FromUnsignedLongLong(u);
            }
            if (u <= (uint64_t)INT64_MAX) {
                return PyLong_FromLongLong(-(long long)u);
            }
            if (u == (uint64_t)INT64_MAX + 1) {
                return PyLong_FromLongLong(INT64_MIN);
            }
        }
    }
    return call_on_bytes(c->convert, s, n);
}

/* float(bytes) of a FLOAT/DOUBLE column. float() strips whitespace and underscores and
   then parses with PyOS_string_to_double, which is called here directly on texts of
   only digits, signs, '.' and exponents that it reads to their end; anything else (and
   every error) is float's. */
static PyObject *
field_float(TextColumn *c, const char *s, Py_ssize_t n)
{
    char text[64];
    if (n > 0 && n < (Py_ssize_t)sizeof(text)) {
        Py_ssize_t j = 0;
        for (; j < n; j++) {
            char ch = s[j];
            if (!((ch >= '0' && ch <= '9') || ch == '.' || ch == '-' || ch == '+' || ch == 'e' ||
                  ch == 'E')) {
                break;
            }
        }
        if (j == n) {
            memcpy(text, s, (size_t)n);
            text[n] = '\0';
            char *end;
            double x = PyOS_string_to_double(text, &end, NULL);
            if (x == -1.0 && PyErr_Occurred()) {
                PyErr_Clear();
            }
            else if (end == text + n) {
                return PyFloat_FromDouble(x);
            }
        }
    }
    return call_on_bytes(c->convert, s, n);
}

/* what: "field", "length" or "value"; size bytes from byte at run past limit. */
static PyObject *
malformed(Py_ssize_t column, const char *what, uint64_t size, Py_ssize_t at, Py_ssize_t limit)
{
    PyErr_Format(PyExc_ValueError,
                 "malformed row packet in the MySQL result set: column #%zd's %s (%llu bytes "
                 "from byte %zd) runs past its packet's end at byte %zd (corrupt data from the "
                 "server or the connection)",
                 column, what, (unsigned long long)size, at, limit);
    return NULL;
}

/* Column i's value, from the length-coded field at *pp that must end by limit (the end of
   its packet), converted as pymysql converts it, then passed to the column's then. */
static PyObject *
text_field(TextRows *self, Py_ssize_t i, const uint8_t *buf, Py_ssize_t *pp, Py_ssize_t limit)
{
    TextColumn *c = &self->cols[i];
    Py_ssize_t p = *pp;
    PyObject *v;
    if (p >= limit) {
        return malformed(i, "field", 1, p, limit);
    }
    unsigned lead = buf[p];
    uint64_t n;
    Py_ssize_t start;
    if (lead < 251) {
        n = lead;
        start = p + 1;
    }
    else if (lead == 251) {
        *pp = p + 1;
        v = Py_NewRef(Py_None);
        goto then;
    }
    else {
        /* the generated reader's widths: 252 two bytes, 253 three, anything else eight */
        Py_ssize_t width = lead == 252 ? 2 : lead == 253 ? 3 : 8;
        if (limit - p - 1 < width) {
            return malformed(i, "length", (uint64_t)width, p + 1, limit);
        }
        n = read_le(buf + p + 1, width);
        start = p + 1 + width;
    }
    if ((uint64_t)(limit - start) < n) {
        return malformed(i, "value", n, start, limit);
    }
    *pp = start + (Py_ssize_t)n;
    const char *s = (const char *)buf + start;
    switch (c->how) {
    case V_INT:
        v = field_int(c, s, (Py_ssize_t)n);
        break;
    case V_FLOAT:
        v = field_float(c, s, (Py_ssize_t)n);
        break;
    case V_TEXT:
        v = field_text(c, s, (Py_ssize_t)n);
        break;
    case V_CALL_TEXT: {
        PyObject *text = field_text(c, s, (Py_ssize_t)n);
        if (text == NULL) {
            return NULL;
        }
        v = PyObject_CallOneArg(c->convert, text);
        Py_DECREF(text);
        break;
    }
    case V_CALL_BYTES:
        v = call_on_bytes(c->convert, s, (Py_ssize_t)n);
        break;
    default:
        v = PyBytes_FromStringAndSize(s, (Py_ssize_t)n);
        break;
    }
    if (v == NULL) {
        return NULL;
    }
then:
    if (c->then != NULL) {
        PyObject *w = PyObject_CallOneArg(c->then, v);
        Py_DECREF(v);
        v = w;
    }
    return v;
}

/* The row of the fields at buf[p:limit], as a list. */
static PyObject *
text_row(TextRows *self, const uint8_t *buf, Py_ssize_t p, Py_ssize_t limit)
{
    PyObject *row = PyList_New(self->ncols);
    if (row == NULL) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < self->ncols; i++) {
        PyObject *v = text_field(self, i, buf, &p, limit);
        if (v == NULL) {
            Py_DECREF(row);
            return NULL;
        }
        PyList_SET_ITEM(row, i, v);
    }
    return row;
}

static PyObject *
textrows_read_many(TextRows *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5) {
        PyErr_Format(PyExc_TypeError,
                     "TextRows.read_many takes (d, p, n, seq, append), %zd arguments given",
                     nargs);
        return NULL;
    }
    PyObject *data = args[0], *append = args[4];
    if (!PyBytes_Check(data)) {
        PyErr_Format(PyExc_TypeError, "TextRows.read_many: d must be bytes, not %.100s",
                     Py_TYPE(data)->tp_name);
        return NULL;
    }
    Py_ssize_t p = PyLong_AsSsize_t(args[1]);
    if (p == -1 && PyErr_Occurred()) {
        return NULL;
    }
    Py_ssize_t n = PyLong_AsSsize_t(args[2]);
    if (n == -1 && PyErr_Occurred()) {
        return NULL;
    }
    long seq = PyLong_AsLong(args[3]);
    if (seq == -1 && PyErr_Occurred()) {
        return NULL;
    }
    if (p < 0 || n < 0 || seq < 0 || seq > 255) {
        PyErr_Format(PyExc_ValueError,
                     "TextRows.read_many: p and n must be >= 0 and seq 0 to 255, got p=%zd, "
                     "n=%zd, seq=%ld",
                     p, n, seq);
        return NULL;
    }
    if (!PyCallable_Check(append)) {
        PyErr_SetString(PyExc_TypeError, "TextRows.read_many: append must be callable");
        return NULL;
    }
    const uint8_t *buf = (const uint8_t *)PyBytes_AS_STRING(data);
    Py_ssize_t end = PyBytes_GET_SIZE(data);
    int stopped = 0;
    for (; n > 0; n--) {
        if (p > end - 4) {
            break;
        }
        Py_ssize_t length = buf[p] | buf[p + 1] << 8 | buf[p + 2] << 16;
        Py_ssize_t stop = p + 4 + length;
        if (stop > end) {
            break;
        }
        if (buf[p + 3] != seq) {
            stopped = STOP_BAD_SEQUENCE;
            break;
        }
        if (length == MAX_PACKET) {
            stopped = STOP_LONG;
            break;
        }
        /* An empty packet has no first byte: it is a row whose fields run past it. */
        if (length > 0) {
            unsigned b = buf[p + 4];
            if (b == 255 || (b == 254 && length < 9)) {
                stopped = STOP_SPECIAL;
                break;
            }
        }
        seq = (seq + 1) & 255;
        PyObject *row = text_row(self, buf, p + 4, stop);
        if (row == NULL) {
            return NULL;
        }
        PyObject *res = PyObject_CallOneArg(append, row);
        Py_DECREF(row);
        if (res == NULL) {
            return NULL;
        }
        Py_DECREF(res);
        p = stop;
    }
    return Py_BuildValue("(nli)", p, seq, stopped);
}

static PyObject *
textrows_read_one(TextRows *self, PyObject *data)
{
    if (!PyBytes_Check(data)) {
        PyErr_Format(PyExc_TypeError, "TextRows.read_one: d must be bytes, not %.100s",
                     Py_TYPE(data)->tp_name);
        return NULL;
    }
    return text_row(self, (const uint8_t *)PyBytes_AS_STRING(data), 0, PyBytes_GET_SIZE(data));
}

static int
textrows_traverse(TextRows *self, visitproc visit, void *arg)
{
    for (Py_ssize_t i = 0; self->cols != NULL && i < self->ncols; i++) {
        Py_VISIT(self->cols[i].encoding);
        Py_VISIT(self->cols[i].convert);
        Py_VISIT(self->cols[i].then);
    }
    return 0;
}

static int
textrows_clear(TextRows *self)
{
    for (Py_ssize_t i = 0; self->cols != NULL && i < self->ncols; i++) {
        TextColumn *c = &self->cols[i];
        c->codec = NULL; /* points into encoding */
        Py_CLEAR(c->encoding);
        Py_CLEAR(c->convert);
        Py_CLEAR(c->then);
    }
    return 0;
}

static void
textrows_dealloc(TextRows *self)
{
    PyObject_GC_UnTrack(self);
    textrows_clear(self);
    PyMem_Free(self->cols);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Fills c from column i's (encoding, converter) and its then. */
static int
parse_text_column(TextColumn *c, Py_ssize_t i, PyObject *item, PyObject *then)
{
    PyObject *pair = PySequence_Fast(item, "");
    if (pair == NULL || PySequence_Fast_GET_SIZE(pair) != 2) {
        Py_XDECREF(pair);
        PyErr_Format(PyExc_TypeError,
                     "TextRows: column #%zd must be an (encoding, converter) pair", i);
        return -1;
    }
    PyObject *encoding = PySequence_Fast_GET_ITEM(pair, 0);
    PyObject *convert = PySequence_Fast_GET_ITEM(pair, 1);
    int rc = -1;
    if (encoding != Py_None) {
        Py_ssize_t size;
        const char *name;
        if (!PyUnicode_Check(encoding)) {
            PyErr_Format(PyExc_TypeError, "TextRows: column #%zd: encoding must be a str or "
                         "None, not %.100s", i, Py_TYPE(encoding)->tp_name);
            goto done;
        }
        name = PyUnicode_AsUTF8AndSize(encoding, &size);
        if (name == NULL) {
            goto done;
        }
        if ((size_t)size != strlen(name)) {
            PyErr_Format(PyExc_ValueError, "TextRows: column #%zd: encoding %R holds a NUL", i,
                         encoding);
            goto done;
        }
        c->encoding = Py_NewRef(encoding);
        c->codec = name;
        c->decode = codec_shortcut(name);
    }
    if (convert != Py_None) {
        if (!PyCallable_Check(convert)) {
            PyErr_Format(PyExc_TypeError, "TextRows: column #%zd: converter must be callable "
                         "or None, not %.100s", i, Py_TYPE(convert)->tp_name);
            goto done;
        }
        c->convert = Py_NewRef(convert);
    }
    if (then != Py_None) {
        if (!PyCallable_Check(then)) {
            PyErr_Format(PyExc_TypeError, "TextRows: then #%zd must be callable or None, not "
                         "%.100s", i, Py_TYPE(then)->tp_name);
            goto done;
        }
        c->then = Py_NewRef(then);
    }
    /* the generated reader's choice: int() and float() take the ASCII bytes as they are */
    int ascii = c->encoding == NULL ||
                PyUnicode_CompareWithASCIIString(c->encoding, "ascii") == 0;
    if (ascii && (convert == (PyObject *)&PyLong_Type || convert == (PyObject *)&PyFloat_Type)) {
        c->how = convert == (PyObject *)&PyLong_Type ? V_INT : V_FLOAT;
    }
    else if (c->convert != NULL) {
        c->how = c->encoding != NULL ? V_CALL_TEXT : V_CALL_BYTES;
    }
    else {
        c->how = c->encoding != NULL ? V_TEXT : V_BYTES;
    }
    rc = 0;
done:
    Py_DECREF(pair);
    return rc;
}

static PyObject *
textrows_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"columns", "then", NULL};
    PyObject *columns, *then;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO:TextRows", kwlist, &columns, &then)) {
        return NULL;
    }
    columns = PySequence_Fast(columns, "TextRows: columns must be a sequence of "
                                        "(encoding, converter) pairs");
    if (columns == NULL) {
        return NULL;
    }
    then = PySequence_Fast(then, "TextRows: then must be a sequence of callables or None");
    if (then == NULL) {
        Py_DECREF(columns);
        return NULL;
    }
    TextRows *self = NULL;
    Py_ssize_t ncols = PySequence_Fast_GET_SIZE(columns);
    if (PySequence_Fast_GET_SIZE(then) != ncols) {
        PyErr_Format(PyExc_ValueError, "TextRows: %zd columns but %zd then callables", ncols,
                     PySequence_Fast_GET_SIZE(then));
        goto fail;
    }
    self = (TextRows *)type->tp_alloc(type, 0);
    if (self == NULL) {
        goto fail;
    }
    self->cols = PyMem_Calloc((size_t)(ncols ? ncols : 1), sizeof(TextColumn));
    if (self->cols == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    for (Py_ssize_t i = 0; i < ncols; i++) {
        self->ncols = i + 1; /* so that clear() sees what is filled */
        if (parse_text_column(&self->cols[i], i, PySequence_Fast_GET_ITEM(columns, i),
                              PySequence_Fast_GET_ITEM(then, i)) < 0) {
            goto fail;
        }
    }
    Py_DECREF(columns);
    Py_DECREF(then);
    return (PyObject *)self;
fail:
    Py_XDECREF(self);
    Py_DECREF(columns);
    Py_DECREF(then);
    return NULL;
}

static PyObject *
textrows_repr(TextRows *self)
{
    return PyUnicode_FromFormat("<TextRows: %zd columns>", self->ncols);
}

static PyMethodDef textrows_methods[] = {
    {"read_many", (PyCFunction)(void (*)(void))textrows_read_many, METH_FASTCALL,
     "read_many(d, p, n, seq, append) -> (p, seq, stopped)\n\n"
     "Reads up to n complete row packets of d from byte p, the first numbered seq, passing "
     "each row to append. Stops at an incomplete packet (stopped 0), or without reading it "
     "at a packet that is out of sequence (STOP_BAD_SEQUENCE), 16 MB long (STOP_LONG), or "
     "an EOF or error packet (STOP_SPECIAL). p: where it stopped; seq: the next number."},
    {"read_one", (PyCFunction)textrows_read_one, METH_O,
     "read_one(d) -> list\n\nThe row whose fields are d (a long row's joined payload)."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject TextRowsType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "kconnect_speedups._mysql.TextRows",
    .tp_basicsize = sizeof(TextRows),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "TextRows(columns, then)\n\n"
              "The row reader of one text-protocol result set: columns, per column, pymysql's "
              "(encoding, converter); then, per column, a callable applied to each value "
              "(None included) or None. The values of "
              "kconnect_connector_mysql._resultset's generated reader.",
    .tp_new = textrows_new,
    .tp_dealloc = (destructor)textrows_dealloc,
    .tp_traverse = (traverseproc)textrows_traverse,
    .tp_clear = (inquiry)textrows_clear,
    .tp_methods = textrows_methods,
    .tp_repr = (reprfunc)textrows_repr,
};

static PyMethodDef module_methods[] = {
    {"text_days", (PyCFunction)(void (*)(void))text_days, METH_FASTCALL,
     "text_days(fallback, v): 'YYYY-MM-DD' as days since 1970-01-01 (None for a zero date); "
     "other text goes to fallback(v)."},
    {"text_millis", (PyCFunction)(void (*)(void))text_millis, METH_FASTCALL,
     "text_millis(fallback, v): 'YYYY-MM-DD HH:MM:SS[.ffffff]' as epoch milliseconds (None "
     "for a zero date); other text goes to fallback(v)."},
    {"text_micros", (PyCFunction)(void (*)(void))text_micros, METH_FASTCALL,
     "text_micros(fallback, v): the same as epoch microseconds."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT,
    .m_name = "kconnect_speedups._mysql",
    .m_doc = "Compiled fast paths of kconnect-connector-mysql: binlog row images, the "
              "records of inserted rows, the snapshot's text-protocol rows.",
    .m_size = -1,
    .m_methods = module_methods,
};

PyMODINIT_FUNC
PyInit__mysql(void)
{
    PyDateTime_IMPORT;
    if (PyDateTimeAPI == NULL) {
        return NULL;
    }
    STR_ROW = PyUnicode_InternFromString("row");
    STR_C = PyUnicode_InternFromString("c");
    if (STR_ROW == NULL || STR_C == NULL) {
        return NULL;
    }
    if (PyType_Ready(&DecoderType) < 0 || PyType_Ready(&CreatesType) < 0 ||
        PyType_Ready(&TextRowsType) < 0) {
        return NULL;
    }
    PyObject *m = PyModule_Create(&moduledef);
    if (m == NULL) {
        return NULL;
    }
    Py_INCREF(&DecoderType);
    if (PyModule_AddObject(m, "RowDecoder", (PyObject *)&DecoderType) < 0) {
        Py_DECREF(&DecoderType);
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&CreatesType);
    if (PyModule_AddObject(m, "PlainCreates", (PyObject *)&CreatesType) < 0) {
        Py_DECREF(&CreatesType);
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&TextRowsType);
    if (PyModule_AddObject(m, "TextRows", (PyObject *)&TextRowsType) < 0) {
        Py_DECREF(&TextRowsType);
        Py_DECREF(m);
        return NULL;
    }
    static const struct {
        const char *name;
        int value;
    } kinds[] = {
        {"INT", K_INT},         {"FLOAT", K_FLOAT},         {"DOUBLE", K_DOUBLE},
        {"YEAR", K_YEAR},       {"DECIMAL", K_DECIMAL},     {"STRING", K_STRING},
        {"ENUM", K_ENUM},       {"SET", K_SET},             {"BIT", K_BIT},
        {"DATE", K_DATE},       {"DATETIME2", K_DATETIME2}, {"TIMESTAMP2", K_TIMESTAMP2},
        {"TIME2", K_TIME2},     {"CALL", K_CALL},
        {"STOP_SPECIAL", STOP_SPECIAL}, {"STOP_LONG", STOP_LONG},
        {"STOP_BAD_SEQUENCE", STOP_BAD_SEQUENCE},
    };
    for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
        if (PyModule_AddIntConstant(m, kinds[k].name, kinds[k].value) < 0) {
            Py_DECREF(m);
            return NULL;
        }
    }
    if (PyModule_AddIntConstant(m, "LAYOUT_VERSION", LAYOUT_VERSION) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}

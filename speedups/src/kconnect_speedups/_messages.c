/* Consumed messages as columns, for the runtime's sink pipeline.
 *
 * A sink batch needs six fields of every consumed message (topic, partition, offset, key,
 * value, headers) and whether any carries an error. Read through confluent-kafka's
 * accessors that is seven method calls and seven passes over the batch, each touching every
 * message object again. `columns` reads them in one pass, from the fields of
 * confluent_kafka.cimpl.Message itself, and gives equal topics as one str.
 *
 * That reads another extension's object layout, so it is guarded twice: `bind` accepts only
 * a type whose instance size is the one mirrored below (confluent-kafka 2.x's Message), and
 * the runtime compares `columns` with the accessors on probe messages before it uses it.
 * Anything else (another type in the list, a message with an error) makes `columns` answer
 * None, and the caller reads the messages through the accessors.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* confluent-kafka's Message (src/confluent_kafka/src/confluent_kafka.h, 2.x, built with
 * librdkafka headers support): the fields this module reads come first. */
typedef struct {
    PyObject_HEAD
    PyObject *topic;
    PyObject *value;
    PyObject *key;
    PyObject *headers;
    void *c_headers; /* librdkafka's headers, turned into a list by headers() on first read */
    PyObject *error;
    int32_t partition;
    int64_t offset;
    int32_t leader_epoch;
    int64_t timestamp;
    int tstype;
    int64_t latency;
    int16_t delivery_count;
} KafkaMessage;

#define PARTITION_UNASSIGNED (-1)

static PyTypeObject *bound_type = NULL;
static PyObject *headers_name = NULL;

static PyObject *
bind(PyObject *module, PyObject *type)
{
    if (!PyType_Check(type)) {
        PyErr_SetString(PyExc_TypeError, "bind: expected confluent_kafka.Message");
        return NULL;
    }
#ifdef Py_GIL_DISABLED
    /* Without the GIL another thread may decode a message's headers while we read them. */
    Py_RETURN_FALSE;
#else
    if (((PyTypeObject *)type)->tp_basicsize != (Py_ssize_t)sizeof(KafkaMessage))
        Py_RETURN_FALSE;
    Py_INCREF(type);
    Py_XSETREF(bound_type, (PyTypeObject *)type);
    Py_RETURN_TRUE;
#endif
}

static PyObject *
field(PyObject *value)
{
    return Py_NewRef(value == NULL ? Py_None : value);
}

/* Whether two topic names are equal: confluent-kafka makes a new str for every message's
 * topic, and a batch is usually of one topic. */
static int
same_text(PyObject *a, PyObject *b)
{
    if (a == b)
        return 1;
    if (a == NULL || b == NULL || !PyUnicode_CheckExact(a) || !PyUnicode_CheckExact(b))
        return 0;
    Py_ssize_t length = PyUnicode_GET_LENGTH(a);
    int kind = PyUnicode_KIND(a);
    return length == PyUnicode_GET_LENGTH(b) && kind == PyUnicode_KIND(b) &&
           memcmp(PyUnicode_DATA(a), PyUnicode_DATA(b), (size_t)length * kind) == 0;
}

static PyObject *
columns(PyObject *module, PyObject *messages)
{
    if (bound_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "columns: bind(confluent_kafka.Message) first");
        return NULL;
    }
    if (!PyList_CheckExact(messages)) {
        PyErr_SetString(PyExc_TypeError, "columns: expected a list of messages");
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(messages);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PyList_GET_ITEM(messages, i);
        if (Py_TYPE(item) != bound_type)
            Py_RETURN_NONE;
        PyObject *error = ((KafkaMessage *)item)->error;
        if (error != NULL && error != Py_None)
            Py_RETURN_NONE;
    }
    PyObject *cols[6] = {NULL};
    for (int c = 0; c < 6; c++) {
        cols[c] = PyList_New(n);
        if (cols[c] == NULL)
            goto fail;
    }
    PyObject *topic = NULL; /* the topic of the message before, borrowed */
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PyList_GET_ITEM(messages, i);
        KafkaMessage *m = (KafkaMessage *)item;
        PyObject *partition, *offset, *headers;
        /* Equal topics as one object: fewer strings alive, and the caller's
         * topics.count(topics[0]) compares pointers, not texts. */
        if (!same_text(m->topic, topic))
            topic = m->topic;
        if (m->partition == PARTITION_UNASSIGNED)
            partition = Py_NewRef(Py_None);
        else if ((partition = PyLong_FromLong(m->partition)) == NULL)
            goto fail;
        PyList_SET_ITEM(cols[1], i, partition);
        if (m->offset < 0)
            offset = Py_NewRef(Py_None);
        else if ((offset = PyLong_FromLongLong(m->offset)) == NULL)
            goto fail;
        PyList_SET_ITEM(cols[2], i, offset);
        if (m->headers != NULL)
            headers = Py_NewRef(m->headers);
        else if (m->c_headers != NULL) {
            /* confluent-kafka decodes them (and keeps the list) on the first headers(). */
            if ((headers = PyObject_CallMethodNoArgs(item, headers_name)) == NULL)
                goto fail;
        }
        else
            headers = Py_NewRef(Py_None);
        PyList_SET_ITEM(cols[5], i, headers);
        PyList_SET_ITEM(cols[0], i, field(topic));
        PyList_SET_ITEM(cols[3], i, field(m->key));
        PyList_SET_ITEM(cols[4], i, field(m->value));
    }
    return Py_BuildValue("(NNNNNN)", cols[0], cols[1], cols[2], cols[3], cols[4], cols[5]);
fail:
    for (int c = 0; c < 6; c++)
        Py_XDECREF(cols[c]);
    return NULL;
}

static PyMethodDef methods[] = {
    {"bind", bind, METH_O,
     "bind(message_type) -> bool: read messages of this type (confluent_kafka.Message) if "
     "its layout is the one this module was built for."},
    {"columns", columns, METH_O,
     "columns(messages) -> (topics, partitions, offsets, keys, values, headers) or None "
     "when a message carries an error or is not of the bound type."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "kconnect_speedups._messages",
    "Consumed confluent-kafka messages read as columns in one pass.", -1, methods,
};

PyMODINIT_FUNC
PyInit__messages(void)
{
    headers_name = PyUnicode_InternFromString("headers");
    if (headers_name == NULL)
        return NULL;
    return PyModule_Create(&module);
}

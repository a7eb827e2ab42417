/* Delivery-report counting for the runtime's source pipeline.
 *
 * confluent-kafka calls a message's on_delivery callable with (error, message) once per
 * record. For a batch whose records all succeed, all the worker needs is how many are
 * still unacknowledged: AckCounter counts successes in C and hands only a report with an
 * error to the Python handler it was given (which decides between a lost topic, a
 * tolerated refusal and a failure). The Python handler may change `remaining` itself.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

typedef struct {
    PyObject_HEAD
    Py_ssize_t remaining;
    PyObject *on_error;
} AckCounter;

static int
AckCounter_init(AckCounter *self, PyObject *args, PyObject *kwds)
{
    static char *keywords[] = {"remaining", "on_error", NULL};
    Py_ssize_t remaining;
    PyObject *on_error;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "nO:AckCounter", keywords, &remaining,
                                     &on_error))
        return -1;
    if (!PyCallable_Check(on_error)) {
        PyErr_SetString(PyExc_TypeError, "AckCounter: on_error must be callable");
        return -1;
    }
    self->remaining = remaining;
    Py_INCREF(on_error);
    Py_XSETREF(self->on_error, on_error);
    return 0;
}

static PyObject *
AckCounter_call(AckCounter *self, PyObject *args, PyObject *kwds)
{
    if (kwds != NULL && PyDict_GET_SIZE(kwds) != 0) {
        PyErr_SetString(PyExc_TypeError, "AckCounter takes no keyword arguments");
        return NULL;
    }
    if (PyTuple_GET_SIZE(args) != 2) {
        PyErr_Format(PyExc_TypeError, "AckCounter takes 2 arguments (error, message), got %zd",
                     PyTuple_GET_SIZE(args));
        return NULL;
    }
    if (PyTuple_GET_ITEM(args, 0) == Py_None) {
        self->remaining -= 1;
        Py_RETURN_NONE;
    }
    if (self->on_error == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "AckCounter: not initialised");
        return NULL;
    }
    return PyObject_Call(self->on_error, args, NULL);
}

static int
AckCounter_traverse(AckCounter *self, visitproc visit, void *arg)
{
    Py_VISIT(self->on_error);
    return 0;
}

static int
AckCounter_clear(AckCounter *self)
{
    Py_CLEAR(self->on_error);
    return 0;
}

static void
AckCounter_dealloc(AckCounter *self)
{
    PyObject_GC_UnTrack(self);
    AckCounter_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMemberDef AckCounter_members[] = {
    {"remaining", T_PYSSIZET, offsetof(AckCounter, remaining), 0,
     "Records not acknowledged yet."},
    {"on_error", T_OBJECT, offsetof(AckCounter, on_error), READONLY,
     "Called with (error, message) for a report with an error."},
    {NULL},
};

static PyTypeObject AckCounterType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "kconnect_speedups._acks.AckCounter",
    .tp_doc = PyDoc_STR(
        "AckCounter(remaining, on_error): an on_delivery callable that counts successful "
        "delivery reports down from remaining and passes a report with an error to "
        "on_error(error, message)."),
    .tp_basicsize = sizeof(AckCounter),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)AckCounter_init,
    .tp_call = (ternaryfunc)AckCounter_call,
    .tp_traverse = (traverseproc)AckCounter_traverse,
    .tp_clear = (inquiry)AckCounter_clear,
    .tp_dealloc = (destructor)AckCounter_dealloc,
    .tp_members = AckCounter_members,
};

static struct PyModuleDef acks_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "kconnect_speedups._acks",
    .m_doc = "Delivery-report counting for the source pipeline.",
    .m_size = -1,
};

PyMODINIT_FUNC
PyInit__acks(void)
{
    if (PyType_Ready(&AckCounterType) < 0)
        return NULL;
    PyObject *module = PyModule_Create(&acks_module);
    if (module == NULL)
        return NULL;
    Py_INCREF(&AckCounterType);
    if (PyModule_AddObject(module, "AckCounter", (PyObject *)&AckCounterType) < 0) {
        Py_DECREF(&AckCounterType);
        Py_DECREF(module);
        return NULL;
    }
    return module;
}

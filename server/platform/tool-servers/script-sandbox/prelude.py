# The trusted side of a script tool, run once per interpreter before any script (see worker.mjs).
# A script runs in a fresh namespace with its own builtins; what it may touch is decided here:
#
# - The source is parsed and refused if it names anything "dunder" (__class__, __import__...), reads an
#   attribute starting with "_", or names the frame/generator/traceback attributes (f_back, gi_frame...)
#   that lead back into our own frames. That closes the usual introspection escapes
#   (().__class__.__base__.__subclasses__(), f.__globals__, ...) before any code runs.
# - Attribute writes and deletes are rewritten to pass through _guard_write: a script may change objects
#   of classes it defined, never a module or a class it did not define, so it cannot leave anything
#   behind for the next call (which may be another account's script) in this interpreter.
# - Builtins are a copy without eval/exec/compile/open/input/globals/vars...; getattr and friends refuse
#   "_" names; __import__ serves an allow-list of pure computation modules as per-call read-only copies
#   holding only functions, classes and immutable constants (random gets a fresh generator, decimal a
#   fresh context).
# - `http` and `json` are the only injected names; `http` reaches the network only through the host's
#   bridge, which enforces the allowed origins and the outbound guard on the main thread.
#
# This is defence in depth: the boundary that holds even if a script escapes it is the WebAssembly
# sandbox plus the locked-down worker realm (worker.mjs).
import ast as _ast
import builtins as _builtins
import dataclasses as _dataclasses
import decimal as _decimal
import enum as _enum
import functools as _functools
import inspect as _inspect
import json as _json
import random as _random
import string as _string
import sys as _sys
import types as _types

_SCRIPT_FILE = "<script>"
_SCRIPT_MODULE = "__script__"

# Frame, code, generator and traceback attributes: each leads to frames and globals of trusted code.
_FORBIDDEN_ATTRS = frozenset(
    "gi_frame gi_code gi_yieldfrom gi_suspended cr_frame cr_code cr_await cr_origin cr_suspended ag_frame ag_code ag_await "
    "f_back f_globals f_locals f_builtins f_code f_trace f_generator tb_frame tb_next format_map mro".split()
)
# format_map and mro are not escapes by themselves; they are refused with the rest to keep the list of
# reflective entry points short and obvious.

_SAFE_BUILTIN_NAMES = (
    "abs all any ascii bin bool bytearray bytes callable chr classmethod complex dict divmod enumerate filter "
    "float format frozenset hash hex id int isinstance issubclass iter len list map max min next object oct ord "
    "pow print property range repr reversed round set slice sorted staticmethod str sum super tuple type zip "
    "aiter anext True False None NotImplemented Ellipsis "
    "BaseException Exception ArithmeticError AssertionError AttributeError BufferError EOFError FloatingPointError "
    "GeneratorExit ImportError IndexError KeyError KeyboardInterrupt LookupError MemoryError ModuleNotFoundError "
    "NameError NotImplementedError OSError OverflowError RecursionError ReferenceError RuntimeError StopIteration "
    "StopAsyncIteration SyntaxError SystemError TimeoutError TypeError UnboundLocalError UnicodeError "
    "UnicodeDecodeError UnicodeEncodeError ValueError ZeroDivisionError ConnectionError PermissionError "
    "LookupError ExceptionGroup BaseExceptionGroup Warning UserWarning DeprecationWarning RuntimeWarning"
).split()

# Module -> names a script may use (None: every public name that is a function, class or immutable
# constant). Pure computation only: nothing that reaches files, processes, threads, the network or the
# interpreter's internals.
_ALLOWED_MODULES = {
    "math": None, "cmath": None, "statistics": None, "fractions": None, "numbers": None,
    "decimal": None, "random": None, "datetime": None, "time": None,
    "calendar": tuple(n for n in __import__("calendar").__all__ if n != "setfirstweekday"),
    "re": None, "textwrap": None, "unicodedata": None, "difflib": None, "html": ("escape", "unescape"),
    "itertools": None, "heapq": None, "bisect": None, "copy": ("copy", "deepcopy"),
    "collections": ("Counter", "OrderedDict", "defaultdict", "deque", "namedtuple", "ChainMap"),
    "functools": ("reduce", "partial", "lru_cache", "cache", "wraps", "cmp_to_key", "total_ordering", "cached_property"),
    "operator": tuple(n for n in dir(__import__("operator")) if not n.startswith("_") and n not in ("attrgetter", "methodcaller")),
    "string": ("ascii_letters", "ascii_lowercase", "ascii_uppercase", "digits", "hexdigits", "octdigits", "punctuation", "printable", "whitespace", "capwords"),
    "base64": None, "binascii": None, "hashlib": None, "hmac": None, "secrets": None, "uuid": None,
    "struct": None, "zlib": None, "ipaddress": None,
    "enum": tuple(n for n in _enum.__all__ if not n.startswith("global_")),  # global_enum rewrites a class it is given
    "dataclasses": ("dataclass", "field", "asdict", "astuple", "fields", "replace", "is_dataclass", "FrozenInstanceError"),
    "typing": ("Any", "Optional", "Union", "List", "Dict", "Tuple", "Set", "FrozenSet", "Iterable", "Iterator",
               "Mapping", "Sequence", "Callable", "Literal", "TypedDict", "NamedTuple", "cast"),
    "io": ("StringIO", "BytesIO"), "csv": ("reader", "writer", "DictReader", "DictWriter", "QUOTE_ALL",
               "QUOTE_MINIMAL", "QUOTE_NONE", "QUOTE_NONNUMERIC", "Error"),
    "urllib.parse": ("urlencode", "quote", "quote_plus", "unquote", "unquote_plus", "urlparse", "urlunparse",
                     "urljoin", "urlsplit", "urlunsplit", "parse_qs", "parse_qsl"),
}
_IMMUTABLE = (str, bytes, int, float, complex, bool, type(None), tuple, frozenset, range)

# Imported now, while the interpreter is ours: the worker forbids loading code once scripts may run.
for _name in _ALLOWED_MODULES:
    __import__(_name)


class _ScriptViolation(Exception):
    pass


class _Checker(_ast.NodeVisitor):
    def _refuse(self, node, message):
        raise _ScriptViolation(f"{message} (line {getattr(node, 'lineno', '?')})")

    def visit_Name(self, node):
        if node.id.startswith("__"):
            self._refuse(node, f"the name {node.id} is not allowed")
        self.generic_visit(node)

    def visit_Attribute(self, node):
        if node.attr.startswith("_") or node.attr in _FORBIDDEN_ATTRS:
            self._refuse(node, f"the attribute .{node.attr} is not allowed")
        if node.attr == "format" and isinstance(node.ctx, _ast.Load):
            # Only called on the spot (visit_Call), where _GuardFormat checks the template's fields.
            self._refuse(node, "the attribute .format may only be called: x.format(...)")
        self.generic_visit(node)

    def visit_Call(self, node):
        func = node.func
        if isinstance(func, _ast.Attribute) and func.attr == "format" and isinstance(func.ctx, _ast.Load):
            self.visit(func.value)
            for child in (*node.args, *node.keywords):
                self.visit(child)
            return
        self.generic_visit(node)

    def visit_MatchClass(self, node):
        for attr in node.kwd_attrs:
            if attr.startswith("_") or attr in _FORBIDDEN_ATTRS:
                self._refuse(node, f"the attribute {attr} is not allowed")
        self.generic_visit(node)

    def visit_ImportFrom(self, node):
        for alias in node.names:
            if alias.name.startswith("_"):
                self._refuse(node, f"importing {alias.name} is not allowed")
        if node.level:
            self._refuse(node, "relative imports are not allowed")
        self.generic_visit(node)

    def _visit_def(self, node):
        # Methods named like __init__ or __repr__ are fine; the rule is about reaching existing objects.
        self.generic_visit(node)

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _visit_def


class _GuardWrites(_ast.NodeTransformer):
    """obj.attr = v and del obj.attr become __sbx_write__(obj).attr = v: see _guard_write."""

    def visit_Attribute(self, node):
        self.generic_visit(node)
        if isinstance(node.ctx, (_ast.Store, _ast.Del)):
            guarded = _ast.Call(func=_ast.Name(id="__sbx_write__", ctx=_ast.Load()), args=[node.value], keywords=[])
            node.value = _ast.copy_location(guarded, node.value)
        return node


class _GuardFormat(_ast.NodeTransformer):
    """x.format(...) becomes __sbx_format__(x, ...): see _safe_format. `.format` read without a call
    (str.format passed around) is refused by _Checker, so every format call goes through here."""

    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        if isinstance(func, _ast.Attribute) and func.attr == "format" and isinstance(func.ctx, _ast.Load):
            guarded = _ast.Call(func=_ast.Name(id="__sbx_format__", ctx=_ast.Load()), args=[func.value, *node.args], keywords=node.keywords)
            return _ast.copy_location(guarded, node)
        return node


def _check_format_fields(template, depth=0):
    # A replacement field may name an argument ({0}, {name}) but not reach into it ({0.attr}, {0[key]}):
    # str.format evaluates those itself, past the AST policy ({0.__globals__}). Nested specs too.
    if depth > 2:
        raise ValueError("format specifications nest too deeply")
    for _literal, field, spec, _conversion in _string.Formatter().parse(template):
        if field is not None and ("." in field or "[" in field):
            raise _ScriptViolation(f"format fields may not read attributes or items: {{{field}}}")
        if spec:
            _check_format_fields(spec, depth + 1)


def _safe_format(receiver, *args, **kwargs):
    if receiver is str:
        # str.format(template, ...)
        if not args or not isinstance(args[0], str):
            raise TypeError("str.format needs a template string")
        _check_format_fields(args[0])
        return str.format(*args, **kwargs)
    if isinstance(receiver, str):
        _check_format_fields(receiver)
        return receiver.format(*args, **kwargs)
    # Not a string (a script's own class, a date…): its own format method, reached as any attribute.
    return receiver.format(*args, **kwargs)


def _defined_by_script(obj):
    cls = obj if isinstance(obj, type) else type(obj)
    return getattr(cls, "__module__", None) == _SCRIPT_MODULE and not isinstance(obj, _types.ModuleType)


def _guard_write(obj):
    if _defined_by_script(obj):
        return obj
    raise AttributeError(f"cannot change attributes of {type(obj).__name__} objects: only of classes the script defines")


def _defined_by_script_code(obj):
    """A function or class the script wrote. A function's __module__ can be rewritten, its code's file cannot."""
    if isinstance(obj, _types.FunctionType):
        return obj.__code__.co_filename == _SCRIPT_FILE
    return isinstance(obj, type) and _defined_by_script(obj)


# Library functions that write attributes onto what they are given, limited as _guard_write limits the
# script: functools.wraps(tool)(type(http)) would otherwise rename a class every later call uses (and with
# updated=["__globals__"] pour our globals into the script's), dataclass(type(http), frozen=True) would
# break it, enum.global_enum rewrites its __repr__.
def _require_script_code(obj, what):
    if not _defined_by_script_code(obj):
        raise TypeError(f"{what} only applies to functions and classes the script defines")
    return obj


def _safe_wraps(wrapped, assigned=_functools.WRAPPER_ASSIGNMENTS, updated=_functools.WRAPPER_UPDATES):
    assigned, updated = tuple(assigned), tuple(updated)
    if not set(assigned) <= set(_functools.WRAPPER_ASSIGNMENTS) or not set(updated) <= set(_functools.WRAPPER_UPDATES):
        raise ValueError("functools.wraps takes only its default attribute names in script tools")

    def decorate(wrapper):
        return _functools.update_wrapper(_require_script_code(wrapper, "functools.wraps"), wrapped, assigned, updated)

    return decorate


def _safe_total_ordering(cls):
    return _functools.total_ordering(_require_script_code(cls, "functools.total_ordering"))


def _safe_dataclass(cls=None, /, **options):
    def decorate(target):
        return _dataclasses.dataclass(_require_script_code(target, "dataclasses.dataclass"), **options)

    return decorate if cls is None else decorate(cls)


def _safe_name(name):
    if not isinstance(name, str):
        raise TypeError("attribute name must be a string")
    if name.startswith("_") or name in _FORBIDDEN_ATTRS or name == "format":
        raise AttributeError(f"the attribute {name} is not allowed")
    return name


def _safe_getattr(obj, name, *default):
    return getattr(obj, _safe_name(name), *default)


def _safe_hasattr(obj, name):
    return hasattr(obj, _safe_name(name))


def _safe_setattr(obj, name, value):
    setattr(_guard_write(obj), _safe_name(name), value)


def _safe_delattr(obj, name):
    delattr(_guard_write(obj), _safe_name(name))


def _facade(module_name, names, fresh):
    module = _sys.modules[module_name]
    view = _types.ModuleType(module_name)
    public = names if names is not None else getattr(module, "__all__", None) or [n for n in dir(module) if not n.startswith("_")]
    for name in public:
        if name.startswith("_"):
            continue
        value = fresh.get(name, getattr(module, name, None))
        if callable(value) or isinstance(value, _IMMUTABLE):
            setattr(view, name, value)
    return view


def _make_import(fresh):
    cache = {}

    def restricted_import(name, globals=None, locals=None, fromlist=(), level=0):
        if level:
            raise ImportError("relative imports are not allowed")
        if name == "json":
            return fresh["json"]
        if name not in _ALLOWED_MODULES and not (name == "urllib" and fromlist and "parse" in fromlist):
            root = name.split(".")[0]
            raise ImportError(f"import of '{root}' is not allowed in script tools")
        if name == "urllib":
            return _types.SimpleNamespace(parse=restricted_import("urllib.parse"))
        if name not in cache:
            cache[name] = _facade(name, _ALLOWED_MODULES[name], fresh.get(name, {}))
        if "." in name and not fromlist:
            # "import urllib.parse" binds "urllib"; give it a namespace holding only the allowed part.
            return _types.SimpleNamespace(parse=cache[name])
        return cache[name]

    return restricted_import


def _fresh_random():
    rng = _random.Random()
    names = [n for n in dir(rng) if not n.startswith("_") and callable(getattr(rng, n))]
    return {n: getattr(rng, n) for n in names} | {"Random": _random.Random}


def _json_facade():
    view = _types.ModuleType("json")
    for name in ("dumps", "loads", "JSONDecodeError", "JSONEncoder", "JSONDecoder"):
        setattr(view, name, getattr(_json, name))
    return view


# --- http: the only way out. The bridge is a host function taking and returning JSON text. ---

_bridge = None
_MAX_REQUEST_BODY = 1024 * 1024


def _install_bridge(bridge):
    global _bridge
    _bridge = bridge


class HttpResponse:
    def __init__(self, status, headers, text, truncated, url):
        self.status = status
        self.status_code = status
        self.headers = headers
        self.text = text
        self.truncated = truncated
        self.url = url
        self.ok = 200 <= status < 300

    def json(self):
        return _json.loads(self.text)

    def raise_for_status(self):
        if not self.ok:
            raise HttpError(f"{self.url} answered {self.status}")

    def __repr__(self):
        return f"<HttpResponse {self.status}>"


class HttpError(Exception):
    pass


class Http:
    """http.get(url, headers=None, params=None), http.post(url, json=None, headers=None, data=None, params=None), ..."""

    def request(self, method, url, json=None, headers=None, data=None, params=None):
        if not isinstance(url, str):
            raise TypeError("url must be a string")
        if params:
            from urllib.parse import urlencode

            url = url + ("&" if "?" in url else "?") + urlencode(params, doseq=True)
        sent_headers = {}
        for key, value in (headers or {}).items():
            sent_headers[str(key)] = str(value)
        body = None
        if json is not None:
            body = _json.dumps(json)
            sent_headers.setdefault("content-type", "application/json")
        elif data is not None:
            if isinstance(data, dict):
                from urllib.parse import urlencode

                body = urlencode(data, doseq=True)
                sent_headers.setdefault("content-type", "application/x-www-form-urlencoded")
            elif isinstance(data, (bytes, bytearray)):
                body = bytes(data).decode("utf-8")
            else:
                body = str(data)
        if body is not None and len(body) > _MAX_REQUEST_BODY:
            raise ValueError(f"request body over {_MAX_REQUEST_BODY} bytes")
        request = {"method": str(method).upper(), "url": url, "headers": sent_headers, "body": body}
        answer = _json.loads(_bridge(_json.dumps(request)))
        if "error" in answer:
            kind = {"PermissionError": PermissionError, "TimeoutError": TimeoutError}.get(answer.get("kind"), ConnectionError)
            raise kind(answer["error"])
        return HttpResponse(answer["status"], answer["headers"], answer["body"], answer["truncated"], url)

    def get(self, url, headers=None, params=None):
        return self.request("GET", url, headers=headers, params=params)

    def head(self, url, headers=None, params=None):
        return self.request("HEAD", url, headers=headers, params=params)

    def delete(self, url, headers=None, params=None, json=None):
        return self.request("DELETE", url, json=json, headers=headers, params=params)

    def post(self, url, json=None, headers=None, data=None, params=None):
        return self.request("POST", url, json=json, headers=headers, data=data, params=params)

    def put(self, url, json=None, headers=None, data=None, params=None):
        return self.request("PUT", url, json=json, headers=headers, data=data, params=params)

    def patch(self, url, json=None, headers=None, data=None, params=None):
        return self.request("PATCH", url, json=json, headers=headers, data=data, params=params)

    def __repr__(self):
        return "<http>"


# Classes the script sees are made read-only to it by _guard_write (their __module__ is not the script's).
HttpResponse.__module__ = Http.__module__ = HttpError.__module__ = "sandbox"


# --- running a script ---

def _describe(error):
    """'<ExceptionType>: message (line N)' with the line in the script, never our frames or paths."""
    if isinstance(error, _ScriptViolation):
        return f"ScriptPolicyError: {error}"
    if isinstance(error, SyntaxError) and error.filename == _SCRIPT_FILE:
        return f"{type(error).__name__}: {error.msg} (line {error.lineno})"
    line = None
    tb = error.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == _SCRIPT_FILE:
            line = tb.tb_lineno
        tb = tb.tb_next
    message = str(error)
    if len(message) > 2000:
        message = message[:2000] + "..."
    text = f"{type(error).__name__}: {message}" if message else type(error).__name__
    return f"{text} (line {line})" if line else text


def _load(source):
    tree = _ast.parse(source, filename=_SCRIPT_FILE)
    _Checker().visit(tree)
    tree = _ast.fix_missing_locations(_GuardFormat().visit(_GuardWrites().visit(tree)))
    code = compile(tree, _SCRIPT_FILE, "exec")
    fresh = {
        "json": _json_facade(),
        "random": _fresh_random(),
        "functools": {"wraps": _safe_wraps, "total_ordering": _safe_total_ordering},
        "dataclasses": {"dataclass": _safe_dataclass},
    }
    _decimal.setcontext(_decimal.Context())
    script_builtins = {name: getattr(_builtins, name) for name in _SAFE_BUILTIN_NAMES if hasattr(_builtins, name)}
    script_builtins.update(
        __import__=_make_import(fresh),
        __build_class__=_builtins.__build_class__,
        getattr=_safe_getattr,
        hasattr=_safe_hasattr,
        setattr=_safe_setattr,
        delattr=_safe_delattr,
        print=lambda *args, **kwargs: None,
    )
    namespace = {
        "__builtins__": script_builtins,
        "__name__": _SCRIPT_MODULE,
        "__sbx_write__": _guard_write,
        "__sbx_format__": _safe_format,
        "http": Http(),
        "json": fresh["json"],
    }
    exec(code, namespace)
    return namespace


def _tool_problem(namespace, name):
    if not name.isidentifier():
        return f"'{name}' is not a valid Python function name"
    fn = namespace.get(name)
    if fn is None:
        return f"the script defines no function named '{name}'"
    if not isinstance(fn, _types.FunctionType):
        return f"'{name}' is not a function"
    for param in _inspect.signature(fn).parameters.values():
        if param.kind is param.POSITIONAL_ONLY and param.default is param.empty:
            return f"'{name}' has a positional-only parameter '{param.name}'; tools take keyword arguments"
    return None


def check(source, tool_names_json):
    try:
        namespace = _load(source)
        problems = [p for p in (_tool_problem(namespace, n) for n in _json.loads(tool_names_json)) if p]
        if problems:
            return _json.dumps({"ok": False, "error": "; ".join(problems)})
        return _json.dumps({"ok": True})
    except MemoryError:
        return _json.dumps({"ok": False, "error": "MemoryError: the script exceeded its memory limit", "recycle": True})
    except BaseException as error:  # noqa: BLE001 - everything a script raises is its own error
        return _json.dumps({"ok": False, "error": _describe(error)})


def call(source, tool, args_json, max_result_bytes):
    try:
        namespace = _load(source)
        problem = _tool_problem(namespace, tool)
        if problem:
            return _json.dumps({"ok": False, "error": f"NameError: {problem}"})
        args = _json.loads(args_json)
        result = namespace[tool](**args)
        try:
            encoded = _json.dumps(result, ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError) as error:
            return _json.dumps({"ok": False, "error": f"TypeError: the result is not JSON-serialisable: {error}"})
        size = len(encoded.encode("utf-8"))
        if size > max_result_bytes:
            return _json.dumps({"ok": False, "error": f"ResultTooLarge: the result is {size} bytes; the limit is {max_result_bytes}"})
        return '{"ok":true,"result":' + encoded + "}"
    except MemoryError:
        return _json.dumps({"ok": False, "error": "MemoryError: the script exceeded its memory limit", "recycle": True})
    except BaseException as error:  # noqa: BLE001
        return _json.dumps({"ok": False, "error": _describe(error)})

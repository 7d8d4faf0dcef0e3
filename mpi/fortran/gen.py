#!/usr/bin/env python3
"""Generates the Fortran binding of librtmsg from include/mpi.h (issue 16).

  gen.py SRCDIR [OUTDIR]   writes, under OUTDIR (SRCDIR/mpi/fortran/):
    mpif.h        the constants of mpi.h as fixed- and free-form Fortran,
                  the special addresses (COMMON blocks), the EXTERNALs
    mpi_consts.h  the same constants without the EXTERNALs, for mpi.f90
    mpi_ifaces.h  explicit interfaces of the routines of the mpi module
    bindings.c    the gfortran entry points mpi_x_ (weak) / pmpi_x_
    symbols.txt   every C function of mpi.h, its mpif.h entry point and its
                  mpi_f08 one (- for none), or why it has none
                  (tests/mpi/mpi_fortran_wrap.sh checks it)
    mpi_f08_consts.h, mpi_f08_ifaces.h
                  the constants and the routines of the mpi_f08 module

The output is committed, so a build needs no python; `make fortran-regen`
runs this script again after mpi.h changes, and the test fails while the
committed files differ from what the script writes.
"""
import os
import re
import sys

# C-only by the standard (MPI 3.1 section 14.3: the tool interface has no
# Fortran binding; section 17.2.4: the conversion functions are C-only) or
# without meaning in Fortran.
C_ONLY_PREFIXES = ("T_",)
C_ONLY = {
    "Status_c2f", "Status_f2c",
}
# Written by hand in fortran.c (strings with a length argument, callbacks,
# attributes, MPI-1 INTEGER addresses, functions that return a value).
MANUAL = {
    "Init", "Init_thread", "Finalize", "Pcontrol", "Wtime", "Wtick", "Aint_add", "Aint_diff",
    "Buffer_detach", "Info_get",
    "Comm_set_attr", "Comm_get_attr", "Type_set_attr", "Type_get_attr",
    "Win_set_attr", "Win_get_attr", "Attr_put", "Attr_get",
    "Comm_create_keyval", "Type_create_keyval", "Win_create_keyval", "Keyval_create",
    "Op_create", "Comm_create_errhandler", "Win_create_errhandler", "Errhandler_create",
    "Grequest_start",
    "Address", "Type_extent", "Type_lb", "Type_ub", "Type_struct", "Type_hvector",
    "Type_hindexed",
}
# Scalars that are LOGICAL in Fortran, per function ("*": any function).
LOGICAL_IN = {("*", "commute"), ("*", "reorder"), ("*", "high"),
              ("Status_set_cancelled", "flag")}
LOGICAL_OUT = {("*", "flag"), ("*", "weighted"), ("Op_commutative", "commute")}
# LOGICAL arrays C writes (normalised to .TRUE./.FALSE. after the call); the
# ones C reads it takes as "nonzero is true", which gfortran's LOGICAL is.
LOGICAL_ARRAY_OUT = {("Cart_get", "periods", "maxdims")}
# Out strings: the C buffer's size.
STRING_OUT = {
    "Get_library_version": "MPI_MAX_LIBRARY_VERSION_STRING",
    "Get_processor_name": "MPI_MAX_PROCESSOR_NAME",
    "Error_string": "MPI_MAX_ERROR_STRING",
    "Comm_get_name": "MPI_MAX_OBJECT_NAME",
    "Type_get_name": "MPI_MAX_OBJECT_NAME",
    "Win_get_name": "MPI_MAX_OBJECT_NAME",
    "Info_get_nthkey": "MPI_MAX_INFO_KEY",
}
# Requests the call reads (and may set to MPI_REQUEST_NULL); all others it
# only writes.
REQUEST_INOUT = {"Start", "Wait", "Test", "Cancel", "Request_free"}
MESSAGE_INOUT = {"Mrecv", "Imrecv"}
STATUS_INOUT = {"Status_set_elements", "Status_set_elements_x", "Status_set_cancelled"}
# Choice buffers (MPI_BOTTOM / MPI_IN_PLACE may be passed for them).
CHOICE = {"buf", "sendbuf", "recvbuf", "inbuf", "outbuf", "origin_addr", "result_addr",
          "compare_addr", "buffer", "location", "base", "inoutbuf"}
# Addresses C writes a pointer into: in Fortran an INTEGER(MPI_ADDRESS_KIND).
BASEPTR = {"baseptr"}
WEIGHTS = {"sourceweights", "destweights", "weights"}
INT_HANDLES = {"MPI_Comm", "MPI_Group", "MPI_Datatype", "MPI_Op", "MPI_Errhandler",
               "MPI_Info", "MPI_Win"}


def read_api(mpi_h):
    text = open(mpi_h).read()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    funcs = []
    for m in re.finditer(r"^(RTMPI_API|RTMPI_API_OLD)\((\w+),\s*\((.*?)\)(,\s*\w+)?\)\s*$",
                         text, flags=re.M | re.S):
        kind, name, args = m.group(1), m.group(2), " ".join(m.group(3).split())
        funcs.append((name, args, kind == "RTMPI_API_OLD"))
    for m in re.finditer(r"^(double|MPI_Aint) MPI_(\w+)\((.*?)\);", text, flags=re.M):
        funcs.append((m.group(2), m.group(3), False))
    return funcs


def parse_args(args):
    if args.strip() in ("void", ""):
        return []
    out = []
    for a in args.split(","):
        a = a.strip()
        if a == "...":
            continue
        m = re.match(r"^(.*?)(\w+)((\[\])*(\[\d+\])?)$", a)
        ctype, name, arr = m.group(1).strip(), m.group(2), m.group(3)
        out.append((ctype, name, arr))
    return out


def matches(table, fn, name):
    return ("*", name) in table or (fn, name) in table


class Gen:
    def __init__(self, fn, args):
        self.fn = fn
        self.args = args
        self.params = []      # Fortran-side parameters (C declarations)
        self.hidden = []      # hidden CHARACTER lengths
        self.decls = []       # declarations, before any goto
        self.pre = []         # statements before the call
        self.cargs = []       # C call arguments
        self.post = []        # statements after the call
        self.cleanup = []     # frees, run whatever rc is
        self.unsupported = None

    def arg(self, ctype, name, arr):
        fn = self.fn
        base = ctype.replace("const ", "").strip()
        const = ctype.startswith("const")
        if name in CHOICE and base == "void *":
            self.params.append("void *%s" % name)
            self.cargs.append("RTM_F_BUF(%s)" % name)
        elif name in BASEPTR and base == "void *":
            self.params.append("void *%s" % name)
            self.cargs.append(name)
        elif base == "int" and not arr:
            self.params.append("MPI_Fint *%s" % name)
            self.cargs.append("(*%s != 0)" % name if matches(LOGICAL_IN, fn, name)
                              else "*%s" % name)
        elif base == "int *" and not arr:
            self.params.append("MPI_Fint *%s" % name)
            if matches(LOGICAL_OUT, fn, name):
                self.decls.append("int c_%s = 0;" % name)
                self.cargs.append("&c_%s" % name)
                self.post.append("*%s = c_%s ? RTM_F_TRUE : RTM_F_FALSE;" % (name, name))
            elif name == "index":
                self.cargs.append(name)
                self.post.append("if (rc == MPI_SUCCESS && *index >= 0) *index += 1;")
            else:
                self.cargs.append(name)
        elif base == "int" and arr == "[]":
            self.params.append("MPI_Fint *%s" % name)
            if name in WEIGHTS:
                self.cargs.append("RTM_F_WEIGHTS(%s)" % name)
            else:
                self.cargs.append(name)
            for (f, n, ln) in LOGICAL_ARRAY_OUT:
                if f == fn and n == name:
                    self.post.append("if (rc == MPI_SUCCESS) rtm_f_logicals(%s, *%s);"
                                     % (name, ln))
            if name == "array_of_indices":
                self.post.append("rtm_f_indices(%s, *outcount);"
                                 % name)
        elif base == "int" and arr == "[][3]":
            self.params.append("MPI_Fint *%s" % name)
            self.cargs.append("(int (*)[3])%s" % name)
        elif base in INT_HANDLES and not arr:
            self.params.append("MPI_Fint *%s" % name)
            self.cargs.append("(%s)*%s" % (base, name))
        elif base in ("%s *" % h for h in INT_HANDLES) and not arr:
            self.params.append("MPI_Fint *%s" % name)
            self.cargs.append(name)
        elif base in INT_HANDLES and arr == "[]":
            self.params.append("MPI_Fint *%s" % name)
            self.cargs.append(name)
        elif base == "MPI_Request" and not arr:
            self.params.append("MPI_Fint *%s" % name)
            self.cargs.append("MPI_Request_f2c(*%s)" % name)
        elif base == "MPI_Request *":
            self.params.append("MPI_Fint *%s" % name)
            if fn in REQUEST_INOUT:
                self.decls.append("MPI_Request c_%s = MPI_Request_f2c(*%s);" % (name, name))
                self.post.append("*%s = MPI_Request_c2f(c_%s);" % (name, name))
            else:
                self.decls.append("MPI_Request c_%s = MPI_REQUEST_NULL;" % name)
                self.post.append("if (rc == MPI_SUCCESS) *%s = MPI_Request_c2f(c_%s);"
                                 % (name, name))
            self.cargs.append("&c_%s" % name)
        elif base == "MPI_Request" and arr == "[]":
            cnt = "count" if any(a[1] == "count" for a in self.args) else "incount"
            self.params.append("MPI_Fint *%s" % name)
            self.decls.append("MPI_Request rq_stack[RTM_F_STACK], *c_%s = rq_stack;" % name)
            self.pre.append("if (*%s < 0) { rc = rtm_f_error(\"MPI_%s\", MPI_ERR_COUNT); "
                            "goto out; }" % (cnt, fn))
            self.pre.append("c_%s = rtm_f_requests_in(%s, *%s, rq_stack);" % (name, name, cnt))
            self.pre.append("if (!c_%s) { c_%s = rq_stack; "
                            "rc = rtm_f_error(\"MPI_%s\", MPI_ERR_NO_MEM); goto out; }"
                            % (name, name, fn))
            self.cargs.append("c_%s" % name)
            self.post.append("rtm_f_requests_out(%s, c_%s, *%s);" % (name, name, cnt))
            self.cleanup.insert(0, "if (c_%s != rq_stack) free(c_%s);" % (name, name))
            self.label = True
        elif base == "MPI_Message *":
            self.params.append("MPI_Fint *%s" % name)
            if fn in MESSAGE_INOUT:
                self.decls.append("MPI_Message c_%s = MPI_Message_f2c(*%s);" % (name, name))
                self.post.append("*%s = MPI_Message_c2f(c_%s);" % (name, name))
            else:
                self.decls.append("MPI_Message c_%s = MPI_MESSAGE_NULL;" % name)
                self.post.append("if (rc == MPI_SUCCESS) *%s = MPI_Message_c2f(c_%s);"
                                 % (name, name))
            self.cargs.append("&c_%s" % name)
        elif base == "MPI_Status *" and not arr:
            self.params.append("MPI_Fint *%s" % name)
            self.decls.append("MPI_Status c_%s;" % name)
            if const or fn in STATUS_INOUT:
                self.pre.append("rtm_f_status_in(%s, &c_%s);" % (name, name))
                self.cargs.append("&c_%s" % name)
                if not const:
                    self.post.append("rtm_f_status_out(&c_%s, %s);" % (name, name))
            else:
                # the status comes in as the program left it: a call with
                # one status never writes its MPI_ERROR (MPI 3.1 3.2.5)
                self.pre.append("rtm_f_status_in(%s, &c_%s);" % (name, name))
                self.cargs.append("RTM_F_IS_STATUS_IGNORE(%s) ? MPI_STATUS_IGNORE : &c_%s"
                                  % (name, name))
                self.post.append("if (!RTM_F_IS_STATUS_IGNORE(%s)) rtm_f_status_out(&c_%s, %s);"
                                 % (name, name, name))
        elif base == "MPI_Status" and arr == "[]":
            cnt = "count" if any(a[1] == "count" for a in self.args) else "incount"
            used = "*outcount" if cnt == "incount" else "*count"
            self.params.append("MPI_Fint *%s" % name)
            self.decls.append("MPI_Status st_stack[RTM_F_STACK], *c_%s = MPI_STATUSES_IGNORE;"
                              % name)
            self.pre.append("if (!RTM_F_IS_STATUSES_IGNORE(%s)) {" % name)
            self.pre.append("    c_%s = rtm_f_statuses_alloc(*%s, st_stack);" % (name, cnt))
            self.pre.append("    if (!c_%s) { c_%s = st_stack; "
                            "rc = rtm_f_error(\"MPI_%s\", MPI_ERR_NO_MEM); goto out; }"
                            % (name, name, fn))
            # statuses come in as the program left them: MPI_ERROR is
            # written only with MPI_ERR_IN_STATUS
            self.pre.append("    else rtm_f_statuses_in(%s, c_%s, *%s);" % (name, name, cnt))
            self.pre.append("}")
            self.cargs.append("c_%s" % name)
            self.post.append("if (c_%s) rtm_f_statuses_out(c_%s, %s, %s);"
                             % (name, name, name, used))
            self.cleanup.insert(0, "if (c_%s != st_stack && c_%s != MPI_STATUSES_IGNORE) "
                                "free(c_%s);" % (name, name, name))
        elif base in ("MPI_Aint", "MPI_Count", "MPI_Offset") and not arr:
            self.params.append("%s *%s" % (base, name))
            self.cargs.append("*%s" % name)
        elif base in ("MPI_Aint *", "MPI_Count *", "MPI_Offset *") and not arr:
            self.params.append("%s %s" % (base, name))
            self.cargs.append(name)
        elif base == "MPI_Aint" and arr == "[]":
            self.params.append("MPI_Aint *%s" % name)
            self.cargs.append(name)
        elif (base == "char *" or base == "char") and const:
            # An input string: copied, trailing blanks dropped, NUL added.
            self.params.append("const char *%s" % name)
            self.hidden.append("size_t %s_len" % name)
            self.decls.append("char *c_%s = NULL;" % name)
            self.pre.append("c_%s = rtm_f_string_in(%s, %s_len);" % (name, name, name))
            self.pre.append("if (!c_%s) { rc = rtm_f_error(\"MPI_%s\", MPI_ERR_NO_MEM); "
                            "goto out; }" % (name, fn))
            self.cargs.append("c_%s" % name)
            self.cleanup.insert(0, "free(c_%s);" % name)
        elif base == "char *" and fn in STRING_OUT:
            self.params.append("char *%s" % name)
            self.hidden.append("size_t %s_len" % name)
            self.decls.append("char c_%s[%s + 1];" % (name, STRING_OUT[fn]))
            self.pre.append("c_%s[0] = '\\0';" % name)
            self.cargs.append("c_%s" % name)
            self.post.append("if (rc == MPI_SUCCESS) rtm_f_string_out(c_%s, %s, %s_len);"
                             % (name, name, name))
        else:
            self.unsupported = "%s %s%s" % (ctype, name, arr)

    def emit(self, old):
        for a in self.args:
            self.arg(*a)
        if self.unsupported:
            return None
        lname = self.fn.lower()
        params = self.params + ["MPI_Fint *ierr"] + self.hidden
        goto = any("goto out" in s for s in self.pre)
        out = []
        out.append("void pmpi_%s_(%s);" % (lname, ", ".join(params)))
        out.append("void pmpi_%s_(%s)" % (lname, ", ".join(params)))
        out.append("{")
        out.append("    int rc = MPI_SUCCESS;")
        for s in self.decls + self.pre:
            out.append("    " + s)
        call = "MPI_%s(%s)" % (self.fn, ", ".join(self.cargs))
        out.append("    rc = %s;" % call)
        for s in self.post:
            out.append("    " + s)
        if goto:
            out.append("out:")
        for s in self.cleanup:
            out.append("    " + s)
        out.append("    if (ierr)")
        out.append("        *ierr = rc;")
        out.append("}")
        out.append("RTM_F_WEAK(%s)" % lname)
        if self.fn not in F08_REMOVED:
            out.extend(self.emit_f08(self.params + ["MPI_Fint *ierr"]))
        out.append("")
        return "\n".join(out)

    def emit_f08(self, params):
        """The mpi_f08 entry point: without a choice buffer the F77 one under
        the names mpi_x_f08_ / pmpi_x_f08_ (the same arguments); with one a
        shim taking the buffers' (and strings') CFI descriptors."""
        lname = self.fn.lower()
        choice = [a for a in self.args if a[1] in CHOICE and "void" in a[0]]
        if not choice:
            return ["RTM_F08_ALIAS(%s, %s_f08);" % (lname, lname)]
        mode = f08_buf_mode(self.fn)
        typed = {}
        if mode == "RTM_F08_CONTIG":
            typed = {a[1]: f08_typed(self.fn, self.args, a[1]) for a in choice}
            typed = {k: v for k, v in typed.items() if v}
        sparams, fargs = [], []
        strs = [a[1] for a in self.args if "char" in a[0]]
        for p in params:
            n = re.search(r"(\w+)$", p).group(1)
            if n in [a[1] for a in choice]:
                sparams.append("CFI_cdesc_t *%s" % n)
                fargs.append("b_%s.ptr" % n)
            elif n in strs:
                sparams.append("CFI_cdesc_t *%s" % n)
                fargs.append("(%s)%s->base_addr" % (p.rsplit("*", 1)[0].strip() + " *", n))
            else:
                sparams.append(p)
                fargs.append(n)
        fargs += ["%s->elem_len" % n for n in strs]
        for bn, (cn, tn) in typed.items():
            fargs = ["b_%s.countp" % bn if x == cn else "b_%s.typep" % bn if x == tn else x
                     for x in fargs]
        body = ["#if RTM_F08"]
        body.append("void pmpi_%s_f08ts_(%s);" % (lname, ", ".join(sparams)))
        body.append("void pmpi_%s_f08ts_(%s)" % (lname, ", ".join(sparams)))
        body.append("{")
        for a in choice:
            body.append("    rtm_f08_buf_t b_%s;" % a[1])
        body.append("    int rc = MPI_SUCCESS;")
        done = []
        for a in choice:
            n = a[1]
            const = a[0].startswith("const")
            m = mode if mode != "RTM_F08_PACK" or not const else "RTM_F08_PACK_IN"
            if n in typed:
                body.append("    rc = rtm_f08_buf_typed(\"MPI_%s\", \"%s\", %s, %s, %s, &b_%s);"
                            % (self.fn, n, n, typed[n][0], typed[n][1], n))
            elif f08_sized(self.fn, self.args, n) and m != "RTM_F08_ADDR":
                cn, tn = f08_sized(self.fn, self.args, n)
                body.append("    rc = rtm_f08_buf_sized(\"MPI_%s\", \"%s\", %s, %s, %s, %s, "
                            "&b_%s);" % (self.fn, n, n, m, cn, tn, n))
            else:
                body.append("    rc = rtm_f08_buf_in(\"MPI_%s\", \"%s\", %s, %s, &b_%s);"
                            % (self.fn, n, n, m, n))
            body.append("    if (rc != MPI_SUCCESS) {")
            for d in reversed(done):
                body.append("        rtm_f08_buf_out(&b_%s, 0);" % d)
            body.append("        if (ierr)")
            body.append("            *ierr = rc;")
            body.append("        return;")
            body.append("    }")
            done.append(n)
        body.append("    pmpi_%s_(%s);" % (lname, ", ".join(fargs)))
        for d in reversed(done):
            body.append("    rtm_f08_buf_out(&b_%s, 1);" % d)
        body.append("}")
        body.append("RTM_F08_WEAK(%s_f08ts)" % lname)
        body.append("#endif")
        return body


# ---- Explicit interfaces of the mpi module ---------------------------------

# The hand-written entry points' Fortran arguments: (name, declaration);
# "choice" takes any type and rank (NO_ARG_CHECK).
A = "integer(kind=MPI_ADDRESS_KIND)"
MANUAL_IFACES = {
    "Init": [], "Finalize": [],
    "Init_thread": [("required", "integer"), ("provided", "integer")],
    "Buffer_detach": [("buffer_addr", "choice"), ("size", "integer")],
    "Info_get": [("info", "integer"), ("key", "character(len=*)"), ("valuelen", "integer"),
                 ("value", "character(len=*)"), ("flag", "logical")],
    "Attr_put": [("comm", "integer"), ("keyval", "integer"), ("attribute_val", "integer")],
    "Attr_get": [("comm", "integer"), ("keyval", "integer"), ("attribute_val", "integer"),
                 ("flag", "logical")],
    "Keyval_create": [("copy_fn", "external"), ("delete_fn", "external"),
                      ("keyval", "integer"), ("extra_state", "integer")],
    "Op_create": [("user_fn", "external"), ("commute", "logical"), ("op", "integer")],
    "Grequest_start": [("query_fn", "external"), ("free_fn", "external"),
                       ("cancel_fn", "external"), ("extra_state", A), ("request", "integer")],
    "Address": [("location", "choice"), ("address", "integer")],
    "Type_hvector": [("count", "integer"), ("blocklength", "integer"), ("stride", "integer"),
                     ("oldtype", "integer"), ("newtype", "integer")],
    "Type_hindexed": [("count", "integer"), ("array_of_blocklengths", "integer, dimension(*)"),
                      ("array_of_displacements", "integer, dimension(*)"),
                      ("oldtype", "integer"), ("newtype", "integer")],
    "Type_struct": [("count", "integer"), ("array_of_blocklengths", "integer, dimension(*)"),
                    ("array_of_displacements", "integer, dimension(*)"),
                    ("array_of_types", "integer, dimension(*)"), ("newtype", "integer")],
}
for _h in ("Comm", "Type", "Win"):
    MANUAL_IFACES[_h + "_set_attr"] = [("obj", "integer"), ("keyval", "integer"),
                                       ("attribute_val", A)]
    MANUAL_IFACES[_h + "_get_attr"] = [("obj", "integer"), ("keyval", "integer"),
                                       ("attribute_val", A), ("flag", "logical")]
    MANUAL_IFACES[_h + "_create_keyval"] = [("copy_fn", "external"), ("delete_fn", "external"),
                                            ("keyval", "integer"), ("extra_state", A)]
for _f in ("Type_extent", "Type_lb", "Type_ub"):
    MANUAL_IFACES[_f] = [("datatype", "integer"), ("v", "integer")]
for _f in ("Comm_create_errhandler", "Win_create_errhandler", "Errhandler_create"):
    MANUAL_IFACES[_f] = [("function", "external"), ("errhandler", "integer")]


def fortran_arg(fn, ctype, name, arr):
    """The Fortran declaration of one argument of a generated entry point."""
    base = ctype.replace("const ", "").strip()
    if (name in CHOICE or name in BASEPTR) and base == "void *":
        return "choice"
    if base == "int" and not arr:
        return "logical" if matches(LOGICAL_IN, fn, name) else "integer"
    if base == "int *" and not arr:
        return "logical" if matches(LOGICAL_OUT, fn, name) else "integer"
    if base == "int" and arr == "[]":
        if name in ("periods", "remain_dims"):
            return "logical, dimension(*)"
        return "integer, dimension(*)"
    if base == "int" and arr == "[][3]":
        return "integer, dimension(3, *)"
    if base.rstrip(" *") in INT_HANDLES or base.rstrip(" *") in ("MPI_Request", "MPI_Message"):
        return "integer, dimension(*)" if arr else "integer"
    if base in ("MPI_Status *", "MPI_Status"):
        if arr:
            return "integer, dimension(MPI_STATUS_SIZE, *)"
        return "integer, dimension(MPI_STATUS_SIZE)"
    if base.rstrip(" *") == "MPI_Aint":
        return A + (", dimension(*)" if arr else "")
    if base.rstrip(" *") == "MPI_Count":
        return "integer(kind=MPI_COUNT_KIND)"
    if base.rstrip(" *") == "MPI_Offset":
        return "integer(kind=MPI_OFFSET_KIND)"
    if base in ("char *", "char"):
        return "character(len=*)"
    raise SystemExit("gen.py: MPI_%s: no Fortran type for %s %s%s" % (fn, ctype, name, arr))


def iface_text(items):
    """items: (Fortran name, [(arg, decl)]): subroutines with ierror."""
    out = ["! Generated by mpi/fortran/gen.py from include/mpi.h: do not edit.",
           "! Explicit interfaces of the mpi module: choice buffers take any type",
           "! and rank (gfortran's NO_ARG_CHECK), every other argument is checked.",
           "  interface"]
    for fname, args in items:
        names = [a for a, _ in args] + ["ierror"]
        line = "    subroutine %s(" % fname
        cur = line
        lines = []
        for i, n in enumerate(names):
            piece = n + (", " if i < len(names) - 1 else ")")
            if len(cur) + len(piece) > 90:
                lines.append(cur.rstrip() + " &")
                cur = "        "
            cur += piece
        lines.append(cur)
        out.extend(lines)
        imports = set()
        for _, d in args:
            for k in ("MPI_ADDRESS_KIND", "MPI_COUNT_KIND", "MPI_OFFSET_KIND", "MPI_STATUS_SIZE"):
                if k in d:
                    imports.add(k)
        if imports:
            out.append("      import :: %s" % ", ".join(sorted(imports)))
        out.append("      implicit none")
        for a, d in args:
            if d == "choice":
                out.append("!GCC$ ATTRIBUTES NO_ARG_CHECK :: %s" % a)
                out.append("      type(*), dimension(*) :: %s" % a)
            elif d == "external":
                out.append("      external :: %s" % a)
            else:
                out.append("      %s :: %s" % (d, a))
        out.append("      integer :: ierror")
        out.append("    end subroutine %s" % fname)
    out.append("  end interface")
    return "\n".join(out) + "\n"


# ---- Constants -----------------------------------------------------------

def read_consts(mpi_h):
    text = open(mpi_h).read()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    consts = []
    seen = {}
    for m in re.finditer(r"^#define (MPI_\w+)\s+(.*?)\s*$", text, flags=re.M):
        name, val = m.group(1), m.group(2)
        if name.startswith(("MPI_F_", "MPI_T_")) and not name.startswith("MPI_T_ERR_"):
            continue
        v = val.strip()
        if re.fullmatch(r"\(?-?\d+\)?", v):
            seen[name] = int(v.strip("()"))
            consts.append((name, seen[name]))
        elif v in seen:
            seen[name] = seen[v]
            consts.append((name, seen[v]))
    return consts


EXTRA_INT = [
    ("MPI_REQUEST_NULL", 0), ("MPI_MESSAGE_NULL", 0), ("MPI_MESSAGE_NO_PROC", 1),
    ("MPI_STATUS_SIZE", 6), ("MPI_SOURCE", 1), ("MPI_TAG", 2), ("MPI_ERROR", 3),
    ("MPI_ADDRESS_KIND", 8), ("MPI_OFFSET_KIND", 8), ("MPI_COUNT_KIND", 8),
    ("MPI_INTEGER_KIND", 4),
]
# Special addresses: Fortran variables in COMMON blocks the C side knows by
# address (gfortran names COMMON /x/ as the symbol x_), as the C globals of
# fortran.c with the same sizes.
COMMONS = [
    ("MPI_BOTTOM", "", "rtm_mpi_f_bottom"),
    ("MPI_IN_PLACE", "", "rtm_mpi_f_in_place"),
    ("MPI_STATUS_IGNORE", "(MPI_STATUS_SIZE)", "rtm_mpi_f_st_ignore"),
    ("MPI_STATUSES_IGNORE", "(MPI_STATUS_SIZE,1)", "rtm_mpi_f_sts_ignore"),
    ("MPI_UNWEIGHTED", "(1)", "rtm_mpi_f_unweighted"),
    ("MPI_WEIGHTS_EMPTY", "(1)", "rtm_mpi_f_weights_empty"),
]
# Predefined callbacks, Fortran-callable functions of fortran.c.
CALLBACKS = ["MPI_COMM_NULL_COPY_FN", "MPI_COMM_NULL_DELETE_FN", "MPI_COMM_DUP_FN",
             "MPI_TYPE_NULL_COPY_FN", "MPI_TYPE_NULL_DELETE_FN", "MPI_TYPE_DUP_FN",
             "MPI_WIN_NULL_COPY_FN", "MPI_WIN_NULL_DELETE_FN", "MPI_WIN_DUP_FN",
             "MPI_NULL_COPY_FN", "MPI_NULL_DELETE_FN", "MPI_DUP_FN"]


def consts_text(consts):
    """Fortran that is both fixed and free form: statements in columns 7-72,
    no continuation lines, comments with ! in column 1."""
    lines = ["! Generated by mpi/fortran/gen.py from include/mpi.h: do not edit.",
             "! The constants of mpi.h, with the same values."]
    for name, val in consts + EXTRA_INT:
        lines.append("      INTEGER %s" % name)
        lines.append("      PARAMETER (%s=%d)" % (name, val))
    lines.append("! Fortran 2008 MPI: no subarrays, no ASYNCHRONOUS protection.")
    for name in ("MPI_SUBARRAYS_SUPPORTED", "MPI_ASYNC_PROTECTS_NONBLOCKING"):
        lines.append("      LOGICAL %s" % name)
        lines.append("      PARAMETER (%s=.FALSE.)" % name)
    lines.append("! Special addresses (compared by address in the library).")
    for name, dims, common in COMMONS:
        lines.append("      INTEGER %s%s" % (name, dims))
        lines.append("      COMMON /%s/ %s" % (common, name))
    lines.append("      SAVE /rtm_mpi_f_bottom/, /rtm_mpi_f_in_place/")
    lines.append("      SAVE /rtm_mpi_f_st_ignore/, /rtm_mpi_f_sts_ignore/")
    lines.append("      SAVE /rtm_mpi_f_unweighted/, /rtm_mpi_f_weights_empty/")
    for ln in lines:
        assert len(ln) <= 72 and "\t" not in ln, ln
    return "\n".join(lines) + "\n"


def mpif_text(consts):
    lines = [consts_text(consts).rstrip("\n"),
             "! Functions and predefined callbacks.",
             "      DOUBLE PRECISION MPI_WTIME, MPI_WTICK",
             "      EXTERNAL MPI_WTIME, MPI_WTICK",
             "      DOUBLE PRECISION PMPI_WTIME, PMPI_WTICK",
             "      EXTERNAL PMPI_WTIME, PMPI_WTICK",
             "      INTEGER(KIND=MPI_ADDRESS_KIND) MPI_AINT_ADD, MPI_AINT_DIFF",
             "      EXTERNAL MPI_AINT_ADD, MPI_AINT_DIFF"]
    for cb in CALLBACKS:
        lines.append("      EXTERNAL %s" % cb)
    for ln in lines[1:]:
        assert len(ln) <= 72 and "\t" not in ln, ln
    return "\n".join(lines) + "\n"


HEADER_C = """/*
 * Generated by mpi/fortran/gen.py from include/mpi.h: do not edit.
 *
 * The gfortran entry points of the mpif.h / `use mpi` binding: for each C
 * function MPI_X of mpi.h, pmpi_x_ (strong) and mpi_x_ (weak), every
 * argument by reference, ierror last, then the hidden CHARACTER lengths.
 * They call the C MPI_X (not PMPI_X), so a C profiler sees Fortran calls
 * as well; a Fortran profiler interposes on mpi_x_ and calls pmpi_x_.
 */
#include "config.h"

#include "fortran_impl.h"

"""


# ---- The mpi_f08 module (MPI 3.1 section 17.2) ------------------------------

F08_HANDLES = ("MPI_Comm", "MPI_Group", "MPI_Datatype", "MPI_Op", "MPI_Errhandler",
               "MPI_Info", "MPI_Win", "MPI_Request", "MPI_Message")
# Removed in MPI 3.0 (no mpi_f08 binding); the MPI-2-deprecated attribute
# functions (Attr_*, Keyval_*) keep one.
F08_REMOVED = {"Address", "Errhandler_create", "Errhandler_get", "Errhandler_set",
               "Type_extent", "Type_lb", "Type_ub", "Type_struct", "Type_hvector",
               "Type_hindexed"}
# Buffers whose address is all the call takes (never copied).
F08_ADDR = {"Get_address", "Free_mem"}
# Buffers the library keeps using after the call returns (nonblocking,
# persistent, one-sided, window memory, the Bsend buffer): a
# non-contiguous section cannot be copied for them.
F08_KEEPS = {"Put", "Get", "Accumulate", "Get_accumulate", "Fetch_and_op", "Compare_and_swap",
             "Rput", "Rget", "Raccumulate", "Rget_accumulate", "Buffer_attach"}
# Of those, the buffers that are one (count, datatype) of this process
# (nonblocking and persistent point-to-point, the send side of nonblocking
# gathers, the receive side of scatters, MPI_Ibcast), in a routine that
# holds its datatypes until it completes and has no reduction op: a section
# is described by a derived datatype instead (no copy). One-sided routines
# do not hold the origin datatype.


def f08_sized(fn, args, buf):
    """(count, datatype) of a buffer that holds exactly count of datatype
    (a copied section is checked to hold them), or None."""
    scalars = {a[1] for a in args if a[0] == "int" and not a[2]}
    types = {a[1] for a in args if a[0] == "MPI_Datatype" and not a[2]}
    pairs = []
    if buf in ("buf", "buffer"):
        pairs.append(("count", "datatype"))
    if buf == "sendbuf" and not re.search(r"scatter|alltoall", fn.lower()):
        pairs.append(("sendcount", "sendtype"))
    if buf == "recvbuf" and not re.search(r"gather|alltoall|^i?reduce$", fn.lower()):
        pairs.append(("recvcount", "recvtype"))
    if buf in ("sendbuf", "recvbuf", "inbuf", "inoutbuf") and "scatter" not in fn.lower():
        if not (buf == "recvbuf" and re.search(r"^i?reduce$", fn.lower())):
            pairs.append(("count", "datatype"))
    for c, t in pairs:
        if c in scalars and t in types:
            return c, t
    return None


def f08_typed(fn, args, buf):
    if fn in F08_KEEPS or fn.startswith("Win_") or any(a[0] == "MPI_Op" for a in args):
        return None
    return f08_sized(fn, args, buf)


def f08_keeps(fn):
    return (re.match(r"I[a-z]", fn) is not None or fn.endswith("_init") or fn in F08_KEEPS
            or fn.startswith("Win_"))


def f08_buf_mode(fn):
    if fn in F08_ADDR:
        return "RTM_F08_ADDR"
    if f08_keeps(fn):
        return "RTM_F08_CONTIG"
    return "RTM_F08_PACK"


def f08_arg(fn, ctype, name, arr):
    """The mpi_f08 declaration of one argument (without intent)."""
    base = ctype.replace("const ", "").strip()
    b = base.rstrip(" *")
    if name in CHOICE and base == "void *":
        return "choice"
    if name in BASEPTR and base == "void *":
        return "type(c_ptr)"
    if b in F08_HANDLES:
        return "type(%s)" % b + (", dimension(*)" if arr else "")
    if b == "MPI_Status":
        return "type(MPI_Status)" + (", dimension(*)" if arr else "")
    return fortran_arg(fn, ctype, name, arr)


def f08_intent(ctype, name, arr):
    """intent(in) for what C takes by value or through a const pointer."""
    base = ctype.replace("const ", "").strip()
    if name in CHOICE:
        return ", intent(in)" if ctype.startswith("const") else ""
    if not arr and "*" not in base:
        return ", intent(in)"
    if ctype.startswith("const"):
        return ", intent(in)"
    return ""


F08_CALLBACK_IFACES = {
    "Op_create": [("user_fn", "procedure(MPI_User_function)"), ("commute", "logical, intent(in)"),
                  ("op", "type(MPI_Op)")],
    "Comm_create_errhandler": [("comm_errhandler_fn",
                                "procedure(MPI_Comm_errhandler_function)"),
                               ("errhandler", "type(MPI_Errhandler)")],
    "Win_create_errhandler": [("win_errhandler_fn", "procedure(MPI_Win_errhandler_function)"),
                              ("errhandler", "type(MPI_Errhandler)")],
    "Grequest_start": [("query_fn", "procedure(MPI_Grequest_query_function)"),
                       ("free_fn", "procedure(MPI_Grequest_free_function)"),
                       ("cancel_fn", "procedure(MPI_Grequest_cancel_function)"),
                       ("extra_state", A + ", intent(in)"), ("request", "type(MPI_Request)")],
    "Init": [], "Finalize": [],
    "Init_thread": [("required", "integer, intent(in)"), ("provided", "integer")],
    "Buffer_detach": [("buffer_addr", "type(c_ptr)"), ("size", "integer")],
    "Info_get": [("info", "type(MPI_Info), intent(in)"), ("key", "character(len=*), intent(in)"),
                 ("valuelen", "integer, intent(in)"), ("value", "character(len=*)"),
                 ("flag", "logical")],
    "Attr_put": [("comm", "type(MPI_Comm), intent(in)"), ("keyval", "integer, intent(in)"),
                 ("attribute_val", "integer, intent(in)")],
    "Attr_get": [("comm", "type(MPI_Comm), intent(in)"), ("keyval", "integer, intent(in)"),
                 ("attribute_val", "integer"), ("flag", "logical")],
    "Keyval_create": [("copy_fn", "procedure(MPI_Copy_function)"),
                      ("delete_fn", "procedure(MPI_Delete_function)"),
                      ("keyval", "integer"), ("extra_state", "integer, intent(in)")],
}
for _h, _t in (("Comm", "MPI_Comm"), ("Type", "MPI_Datatype"), ("Win", "MPI_Win")):
    F08_CALLBACK_IFACES[_h + "_set_attr"] = [
        ("obj", "type(%s), intent(in)" % _t), ("keyval", "integer, intent(in)"),
        ("attribute_val", A + ", intent(in)")]
    F08_CALLBACK_IFACES[_h + "_get_attr"] = [
        ("obj", "type(%s), intent(in)" % _t), ("keyval", "integer, intent(in)"),
        ("attribute_val", A), ("flag", "logical")]
    F08_CALLBACK_IFACES[_h + "_create_keyval"] = [
        ("%s_copy_attr_fn" % _h.lower(), "procedure(MPI_%s_copy_attr_function)" % _h),
        ("%s_delete_attr_fn" % _h.lower(), "procedure(MPI_%s_delete_attr_function)" % _h),
        ("keyval", "integer"), ("extra_state", A + ", intent(in)")]


def f08_sub(fname, bind, args, ierror=True):
    """One interface body: args are (name, declaration) pairs; "choice" is
    an assumed-type assumed-rank buffer (then the interface is BIND(C), the
    buffer passed as a CFI descriptor)."""
    names = [a for a, _ in args] + (["ierror"] if ierror else [])
    head = "    subroutine %s(%s)" % (fname, ", ".join(names))
    if bind:
        head += " bind(C, name=\"%s\")" % bind
    out = wrap(head)
    imports = []
    text = " ".join(d for _, d in args)
    for k in ("MPI_ADDRESS_KIND", "MPI_COUNT_KIND", "MPI_OFFSET_KIND", "MPI_Status") + F08_HANDLES:
        if re.search(r"\b%s\b" % k, text):
            imports.append(k)
    for k in re.findall(r"procedure\((\w+)\)", text):
        imports.append(k)
    if "c_ptr" in text:
        imports.append("c_ptr")
    if imports:
        out.extend(wrap("      import :: " + ", ".join(sorted(set(imports)))))
    out.append("      implicit none")
    for a, d in args:
        if d.startswith("choice"):
            out.append("      type(*), dimension(..)%s :: %s" % (d[6:], a))
        else:
            out.append("      %s :: %s" % (d, a))
    if ierror:
        out.append("      integer, optional, intent(out) :: ierror")
    out.append("    end subroutine %s" % fname)
    return out


def wrap(line):
    out = []
    cur = line
    while len(cur) > 100:
        cut = cur.rfind(", ", 0, 96) + 2
        out.append(cur[:cut].rstrip() + " &")
        cur = "        " + cur[cut:]
    out.append(cur)
    return out


def f08_iface_text(items):
    """items: (C name, args, bind): the generic MPI_X and PMPI_X, each with
    its one specific procedure MPI_X_f08 / MPI_X_f08ts (MPI 3.1 17.1.5)."""
    out = ["! Generated by mpi/fortran/gen.py from include/mpi.h: do not edit.",
           "! The routines of the mpi_f08 module: a generic name per routine with",
           "! one specific procedure, MPI_X_f08ts (choice buffers, TS 29113, BIND(C)",
           "! with the binding label mpi_x_f08ts_) or MPI_X_f08 (external name",
           "! mpi_x_f08_); PMPI_X the same with pmpi_x_f08[ts]_ (MPI 3.1 17.1.5)."]
    for fn, args, bind in items:
        suffix = "_f08ts" if bind else "_f08"
        for pre in ("MPI_", "PMPI_"):
            spec = pre + fn + suffix
            out.append("  interface %s%s" % (pre, fn))
            out.extend(f08_sub(spec, spec.lower() + "_" if bind else None, args))
            out.append("  end interface %s%s" % (pre, fn))
    return "\n".join(out) + "\n"


def f08_consts_text(consts, handle_of):
    out = ["! Generated by mpi/fortran/gen.py from include/mpi.h: do not edit.",
           "! The constants of mpi.h for the mpi_f08 module: handles as their",
           "! TYPE(MPI_Xxx), everything else as in mpif.h (the same values)."]
    for name, val in consts + EXTRA_INT:
        t = handle_of(name)
        if t:
            out.append("  type(%s), parameter :: %s = %s(%d)" % (t, name, t, val))
        else:
            out.append("  integer, parameter :: %s = %d" % (name, val))
    return "\n".join(out) + "\n"


def handle_classifier(mpi_h):
    text = open(mpi_h).read()
    sec = text.split("/* ---- Predefined handles ---- */", 1)[1]
    sec = sec.split("/* Predefined attribute keys */", 1)[0]
    dt = sec.split("/* Datatypes", 1)[1].split("/* Reduction operations */", 1)
    datatypes = set(re.findall(r"^#define (MPI_\w+)", dt[0], flags=re.M))
    ops = set(re.findall(r"^#define (MPI_\w+)", dt[1], flags=re.M))
    prefixes = (("MPI_COMM_", "MPI_Comm"), ("MPI_GROUP_", "MPI_Group"),
                ("MPI_ERRHANDLER_", "MPI_Errhandler"), ("MPI_ERRORS_", "MPI_Errhandler"),
                ("MPI_INFO_", "MPI_Info"), ("MPI_WIN_", "MPI_Win"))
    handles = set(re.findall(r"^#define (MPI_\w+)", sec.split("/* Datatypes", 1)[0],
                             flags=re.M))

    def handle_of(name):
        if name in datatypes:
            return "MPI_Datatype"
        if name in ops:
            return "MPI_Op"
        if name in ("MPI_REQUEST_NULL",):
            return "MPI_Request"
        if name in ("MPI_MESSAGE_NULL", "MPI_MESSAGE_NO_PROC"):
            return "MPI_Message"
        if name in handles:
            for p, t in prefixes:
                if name.startswith(p):
                    return t
            raise SystemExit("gen.py: no handle type for %s" % name)
        return None
    return handle_of


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else "."
    mpi_h = os.path.join(src, "include", "mpi.h")
    outdir = sys.argv[2] if len(sys.argv) > 2 else os.path.join(src, "mpi", "fortran")
    funcs = read_api(mpi_h)
    consts = read_consts(mpi_h)
    body = [HEADER_C]
    table = []
    ifaces = []
    f08 = []
    for name, args, old in funcs:
        if name.startswith(C_ONLY_PREFIXES) or name in C_ONLY or name.endswith(("_c2f", "_f2c")):
            table.append("MPI_%s - - C-only (MPI 3.1: no Fortran binding)" % name)
            continue
        if name in MANUAL:
            table.append("MPI_%s mpi_%s_ %s fortran.c" % (
                name, name.lower(),
                "mpi_%s_f08_" % name.lower() if name in F08_CALLBACK_IFACES else "-"))
            if name in MANUAL_IFACES:
                ifaces.append(("MPI_" + name.upper(), MANUAL_IFACES[name]))
            if name in F08_CALLBACK_IFACES:
                f08.append((name, F08_CALLBACK_IFACES[name], False))
            continue
        g = Gen(name, parse_args(args))
        code = g.emit(old)
        if code is None:
            sys.exit("gen.py: MPI_%s: no rule for argument %s" % (name, g.unsupported))
        body.append(code)
        ifaces.append(("MPI_" + name.upper(),
                       [(a[1], fortran_arg(name, *a)) for a in parse_args(args)]))
        if name in F08_REMOVED:
            table.append("MPI_%s mpi_%s_ - bindings.c" % (name, name.lower()))
            continue
        has_choice = any(a[1] in CHOICE and "void" in a[0] for a in parse_args(args))
        table.append("MPI_%s mpi_%s_ mpi_%s_%s_ bindings.c" % (
            name, name.lower(), name.lower(), "f08ts" if has_choice else "f08"))
        fargs = []
        bind = False
        for a in parse_args(args):
            d = f08_arg(name, *a)
            if d == "choice":
                bind = True
                if f08_keeps(name):
                    d += ", asynchronous"
            fargs.append((a[1], d + f08_intent(*a)))
        f08.append((name, fargs, bind))
    # The c2f/f2c functions are not in RTMPI_API lines.
    for h in ("Comm", "Group", "Type", "Op", "Info", "Errhandler", "Request", "Message",
              "Win"):
        for d in ("c2f", "f2c"):
            table.append("MPI_%s_%s - - C-only (MPI 3.1: no Fortran binding)" % (h, d))
    files = {
        "bindings.c": "".join(s if s.endswith("\n") else s + "\n" for s in body).rstrip("\n")
        + "\n",
        "mpif.h": mpif_text(consts),
        "mpi_consts.h": consts_text(consts),
        "symbols.txt": "\n".join(sorted(table)) + "\n",
        "mpi_ifaces.h": iface_text(ifaces),
        "mpi_f08_ifaces.h": f08_iface_text(f08),
        "mpi_f08_consts.h": f08_consts_text(consts, handle_classifier(mpi_h)),
    }
    for fname, text in files.items():
        with open(os.path.join(outdir, fname), "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""nbrcoll's Fortran entry points, generated from calls.tbl.

  gen_entries.py --table calls.tbl --flavour openmpi|mpich --mpi-version N
                 [--mpix-pcollreq] --bindings mpifh,f08 --cpp OUT.cpp --names OUT.txt
      writes the wrappers of the calls and bindings this MPI has (OUT.cpp)
      and the names they export, one a line (OUT.txt); --mpix-pcollreq: the
      MPI has Open MPI's persistent collectives extension (MPIX_ names)
  gen_entries.py --table calls.tbl --check-exports-map exports.map
      fails unless the version script exports exactly every row's C entry
      point, every name of every family, and nbrcoll_version

Each wrapper converts its arguments the way the MPI's own Fortran binding
converts them (the "style" of that binding, below), calls nbrcoll's C entry
point MPI_<call> and converts back. What each style does with each kind was
read from the MPIs' own bindings (Open MPI 4.1 ompi/mpi/fortran/mpif-h/*.c,
MPICH 4.0 maint/local_python/binding_f77.py and binding_f08.py, and the
routines in Debian's libmpichfort.so): see fortran_support.h for the
primitives.
"""

import argparse
import os
import re
import sys

KINDS = {
    "sbuf", "rbuf", "wbuf", "int", "ints", "counts", "adispls", "weights", "logical", "dtype", "dtypes_out",
    "dtypes_in", "comm", "info", "comm_out", "req_out", "int_out", "argv", "req", "req_in", "req_val", "count", "reqs",
    "flag", "index", "outcount", "indices", "status", "statuses", "logicals",
}
BUFFERS = {"sbuf", "rbuf", "wbuf"}
DATATYPE_ARRAYS = {"dtypes_out": "ompi::kOutDegree", "dtypes_in": "ompi::kInDegree"}

# What both styles hand to the C call for these kinds: INTEGERs by value,
# INTEGER arrays and INTEGER outputs as they are (MPI_Fint is int),
# INTEGER(KIND=MPI_ADDRESS_KIND) arrays as they are (both bindings take them
# as MPI_Aint), input handles through PMPI_*_f2c.
COMMON_ARGS = {
    "int": "*{n}", "count": "*{n}", "ints": "{n}", "counts": "{n}", "adispls": "{n}", "int_out": "{n}",
    "index": "{n}", "outcount": "{n}", "indices": "{n}", "dtype": "PMPI_Type_f2c(*{n})", "info": "PMPI_Info_f2c(*{n})",
    "req_val": "PMPI_Request_f2c(*{n})",
}


def common_arg(row, style, kind, n):
    if kind not in COMMON_ARGS:
        raise SystemExit("%s: the %s style has no handler for kind %s" % (row.line, style, kind))
    return COMMON_ARGS[kind].format(n=n)


# Which conversion style each MPI's binding has. Open MPI's use mpi_f08
# routines hand their arguments (TYPE(MPI_Comm) as its INTEGER MPI_VAL,
# TYPE(MPI_Status) as the same 6 INTEGERs) to the mpif.h code and copy its
# error code to ierror when present: one style serves both.
STYLES = {("openmpi", "mpifh"): "openmpi", ("openmpi", "f08"): "openmpi", ("mpich", "mpifh"): "mpich_mpif",
          ("mpich", "f08"): "mpich_f08"}


NEEDS = ("mpi3", "mpi4", "mpi4c", "pcoll", "pcoll_init")


class Row:
    def __init__(self, name, needs, args, line, c_only=False):
        self.name, self.needs, self.args, self.line, self.c_only = name, needs, args, line, c_only
        self.kinds = [k for k, _ in args]

    def prefixes(self, mpi_version, mpix):
        """The prefixes ("MPI", "MPIX") under which an MPI of this version,
        with or without Open MPI's pcollreq extension, has this call."""
        mpi4 = mpi_version >= 4
        if self.needs == "mpi3":
            return ["MPI"]
        if self.needs in ("mpi4", "mpi4c"):
            return ["MPI"] if mpi4 else []
        if self.needs == "pcoll":
            return ["MPI"] if mpi4 or mpix else []
        return (["MPI"] if mpi4 else []) + (["MPIX"] if mpix else [])

    def all_prefixes(self):
        return ["MPI", "MPIX"] if self.needs == "pcoll_init" else ["MPI"]

    def has(self, kind):
        return kind in self.kinds

    def arg(self, kind):
        return next(n for k, n in self.args if k == kind)

    def has_name(self, name):
        return any(n == name for _, n in self.args)


class Family:
    def __init__(self, flavour, binding, coverage, patterns):
        self.flavour, self.binding, self.coverage, self.patterns = flavour, binding, coverage, patterns

    def covers(self, row):
        if row.c_only:
            return False
        return self.coverage == "all" or not any(k in BUFFERS for k in row.kinds)

    def names(self, row, prefix="MPI"):
        names = [p.replace("{UPPER}", row.name.upper()).replace("{lower}", row.name.lower()).replace("{Name}", row.name)
                 for p in self.patterns]
        if prefix == "MPI":
            return names
        # The patterns start MPI_ or mpi_: Open MPI's extension names its calls MPIX_ / mpix_.
        return [prefix + n[3:] if n.startswith("MPI_") else prefix.lower() + n[3:] for n in names]


def parse(path):
    rows, families = [], []
    with open(path, encoding="utf-8") as f:
        for number, text in enumerate(f, 1):
            words = text.split("#", 1)[0].split()
            if not words:
                continue
            where = "%s:%d" % (os.path.basename(path), number)
            if words[0] == "family":
                if len(words) < 5 or words[3] not in ("all", "no-buffer"):
                    sys.exit("%s: family <flavour> <binding> all|no-buffer <pattern>..." % where)
                if (words[1], words[2]) not in STYLES:
                    sys.exit("%s: no conversion style for %s %s (gen_entries.py STYLES)" % (where, words[1], words[2]))
                families.append(Family(words[1], words[2], words[3], words[4:]))
                continue
            if len(words) < 2 or words[1] not in NEEDS:
                sys.exit("%s: <call> %s <kind>:<name>..." % (where, "|".join(NEEDS)))
            if words[1] == "mpi4c":
                if len(words) > 2:
                    sys.exit("%s: a C-only row (mpi4c) has no Fortran arguments" % where)
                rows.append(Row(words[0], words[1], [], where, c_only=True))
                continue
            args = []
            for a in words[2:]:
                kind, _, name = a.partition(":")
                if kind == "argv" and not name:
                    name = "argv"
                if kind not in KINDS or not re.fullmatch(r"[a-z_][a-z0-9_]*", name):
                    sys.exit("%s: bad argument '%s' (kind:name, kinds listed in calls.tbl)" % (where, a))
                args.append((kind, name))
            rows.append(Row(words[0], words[1], args, where))
    return rows, families


# ---- the Open MPI style ------------------------------------------------------
# ompi/mpi/fortran/mpif-h/*_f.c: handles through PMPI_*_f2c / _c2f; INTEGER
# arrays as they are (MPI_Fint is int); output handles, requests and statuses
# written back only on success (and, for the test calls, only when the flag
# says complete); MPI_UNDEFINED indices left as they are, others made 1-based;
# a count of 0 answered without a call; the v collectives ask PMPI_Comm_size
# first. Where Open MPI writes a value the C call never set (uninitialised
# memory: statuses past outcount, a status or flag after an error), these
# wrappers write nothing. Arrays of datatypes (alltoallw) go through
# PMPI_Type_f2c into C arrays as long as the side's degree (see
# ompi::Datatypes); MPI_BOTTOM is the only sentinel of alltoallw's buffers.
def openmpi_body(row, style):
    pre, args, post, empty, typed = [], [], [], [], []
    flag = row.arg("flag") if row.has("flag") else None
    ok = "rc == MPI_SUCCESS" + (" && *%s != 0" % flag if flag else "")
    count = row.arg("count") if row.has("count") else None
    for kind, n in row.args:
        if kind == "sbuf":
            args.append("ompi::send_buffer(%s)" % n)
        elif kind in ("rbuf", "wbuf"):
            args.append("ompi::recv_buffer(%s)" % n)
        elif kind in DATATYPE_ARRAYS:
            # After the communicator's conversion and the size query (below).
            typed.append("ompi::Datatypes %s_c(comm_ok ? %s_c : MPI_COMM_NULL, %s, %s);" % (
                n, row.arg("comm"), n, DATATYPE_ARRAYS[kind]))
            typed.append("if (!%s_c.ok()) return no_memory(ierr);" % n)
            args.append("%s_c.data()" % n)
        elif kind == "weights":
            args.append("ompi::weights(%s)" % n)
        elif kind == "logical":
            args.append("ompi::from_logical(*%s)" % n)
        elif kind == "logicals":
            # One per dimension: ndims, or (MPI_Cart_sub) the communicator's,
            # which Open MPI asks only where it converts.
            if row.has_name("ndims"):
                pre.append("ompi::LogicalsIn %s_c(%s, *ndims);" % (n, n))
            else:
                c = row.arg("comm")
                pre.append("int %s_n = 0;" % n)
                pre.append("if (const int e = ompi::logicals_length(%s_c, %s_n); e != MPI_SUCCESS) {" % (c, n))
                pre.append("  set_ierr(ierr, e);")
                pre.append("  return;")
                pre.append("}")
                pre.append("ompi::LogicalsIn %s_c(%s, %s_n);" % (n, n, n))
            pre.append("if (!%s_c.ok()) return no_memory(ierr);" % n)
            args.append("%s_c.data()" % n)
        elif kind == "comm":
            pre.append("const MPI_Comm %s_c = PMPI_Comm_f2c(*%s);" % (n, n))
            args.append(n + "_c")
        elif kind == "argv":
            pre.append("int argc_c = 0;")
            pre.append("char** argv_c = nullptr;")
            args.append("&argc_c, &argv_c")
        elif kind in ("comm_out", "req_out"):
            what = "Comm" if kind == "comm_out" else "Request"
            pre.append("MPI_%s %s_c = MPI_%s_NULL;" % (what, n, what.upper()))
            args.append("&%s_c" % n)
            post.append("if (rc == MPI_SUCCESS) *%s = PMPI_%s_c2f(%s_c);" % (n, what, n))
        elif kind in ("req", "req_in"):
            pre.append("MPI_Request %s_c = PMPI_Request_f2c(*%s);" % (n, n))
            args.append("&%s_c" % n)
            if kind == "req":
                post.append("if (%s) *%s = PMPI_Request_c2f(%s_c);" % (ok, n, n))
        elif kind == "req_val":
            if row.has("status"):
                # Open MPI: MPI_STATUS_IGNORE answers "not complete" without asking.
                s = row.arg("status")
                pre.append("if (ompi::status_ignored(%s)) {" % s)
                pre.append("  *%s = to_logical(0);" % flag)
                pre.append("  set_ierr(ierr, MPI_SUCCESS);")
                pre.append("  return;")
                pre.append("}")
            args.append(common_arg(row, style, kind, n))
        elif kind == "reqs":
            pre.append("ompi::Requests %s_c(*%s, %s);" % (n, count, n))
            pre.append("if (!%s_c.ok()) return no_memory(ierr);" % n)
            args.append("%s_c.data()" % n)
            if row.has("index"):
                i = row.arg("index")
                post.append("if (%s && *%s != MPI_UNDEFINED) %s_c.put(%s, (*%s)++);" % (ok, i, n, n, i))
            elif row.has("indices"):
                o, ix = row.arg("outcount"), row.arg("indices")
                post.append("if (rc == MPI_SUCCESS && *%s != MPI_UNDEFINED) {" % o)
                post.append("  for (int i = 0; i < *%s; ++i) %s_c.put(%s, %s[i]++);" % (o, n, n, ix))
                post.append("}")
            else:
                post.append("if (%s) %s_c.put_all(%s);" % (ok, n, n))
        elif kind == "flag":
            pre.append("ompi::LogicalOut %s_c(%s);" % (n, n))
            args.append("%s_c.c()" % n)
            post.insert(0, "%s_c.put();" % n)
        elif kind == "status":
            pre.append("MPI_Status %s_c{};" % n)
            args.append("&%s_c" % n)
            post.append("if (%s) ompi::put_status(%s_c, %s);" % (ok, n, n))
        elif kind == "statuses":
            pre.append("ompi::Statuses %s_c(*%s);" % (n, count))
            pre.append("if (!%s_c.ok()) return no_memory(ierr);" % n)
            args.append("%s_c.data()" % n)
            if row.has("outcount"):
                post.append("if (rc == MPI_SUCCESS) %s_c.put(%s, *%s);" % (n, n, row.arg("outcount")))
            else:
                post.append("if (%s) %s_c.put(%s, *%s);" % (ok, n, n, count))
        else:
            args.append(common_arg(row, style, kind, n))
        # A count of 0 is answered without a call (completion calls only).
        if count and (row.has("status") or row.has("statuses")):
            if kind == "flag":
                empty.append("*%s = to_logical(1);" % n)
            elif kind == "index" or kind == "outcount":
                empty.append("*%s = MPI_UNDEFINED;" % n)
            elif kind == "status":
                empty.append("ompi::put_empty_status(%s);" % n)
    if typed:
        pre.append("const bool comm_ok = ompi::ask_size(%s_c);" % row.arg("comm"))
        pre += typed
    elif row.has("counts"):
        pre.append("ompi::ask_size(%s_c);" % row.arg("comm"))
    if empty:
        empty = ["if (*%s == 0) {" % count] + ["  " + e for e in empty] + [
            "  set_ierr(ierr, MPI_SUCCESS);", "  return;", "}"]
    return empty + pre, args, post


# ---- the MPICH styles ----------------------------------------------------------
# MPICH 4.0's routines hand every argument to C as it is (its INTEGER handles
# and requests are its C handles, TYPE(MPI_Status) its C status), argc/argv
# NULL, a LOGICAL in as it is. Its use mpi_f08 routines without a choice
# buffer (mpi_*_f08_): MPI_STATUS(ES)_IGNORE and MPI_UNWEIGHTED /
# MPI_WEIGHTS_EMPTY recognised by address, a flag written as .TRUE. /
# .FALSE. whatever the result, indices left 0-based (as MPICH 4.0.2's own).
# Its mpif.h / use mpi routines (src/binding/fortran/mpif_h, generated by
# maint/local_python/binding_f77.py): first mpirinitf_ once (it records the
# addresses of the common blocks), then the same recognition against those
# addresses (MPI_BOTTOM in buffers, not MPI_IN_PLACE), a flag written only on
# success, an index made 1-based on success (MPI_UNDEFINED too, as MPICH's
# own), the indices of Waitsome / Testsome made 1-based whatever the result.
def mpich_body(row, style):
    mpif = style == "mpich_mpif"
    ns = "mpich_mpif" if mpif else "mpich_f08"
    pre, args, post = [], [], []
    if mpif:
        pre.append("mpich_mpif::prologue();")
    for kind, n in row.args:
        if kind == "logical":
            args.append("*" + n)
        elif kind == "logicals":
            # As they are (MPICH's use mpi_f08 routine copies the values into
            # scratch first; MPI_Cart_sub's asks the communicator's
            # dimensions before, ignoring the answer).
            if not mpif and not row.has_name("ndims"):
                pre.append("mpich_f08::ask_cart_dims(PMPI_Comm_f2c(*%s));" % row.arg("comm"))
            args.append(n)
        elif kind in ("weights", "status", "statuses"):
            args.append("%s::%s(%s)" % (ns, kind, n))
        elif kind == "comm":
            args.append("PMPI_Comm_f2c(*%s)" % n)
        elif kind == "argv":
            args.append("nullptr, nullptr")
        elif kind == "comm_out":
            args.append("mpich_handle<MPI_Comm>(%s)" % n)
        elif kind in ("req", "req_in", "reqs", "req_out"):
            args.append("mpich_handle<MPI_Request>(%s)" % n)
        elif kind in DATATYPE_ARRAYS:
            args.append("mpich_handle<MPI_Datatype>(%s)" % n)
        elif kind == "flag":
            pre.append("int %s_c = 0;" % n)
            args.append("&%s_c" % n)
            post.append(("if (rc == MPI_SUCCESS) " if mpif else "") + "*%s = to_logical(%s_c);" % (n, n))
        elif kind == "index" and mpif:
            pre.append("int %s_c = 0;" % n)
            args.append("&%s_c" % n)
            post.append("if (rc == MPI_SUCCESS) *%s = %s_c + 1;" % (n, n))
        elif kind == "indices" and mpif:
            args.append(n)
            post.append("for (int i = 0; i < *%s; ++i) ++%s[i];" % (row.arg("outcount"), n))
        elif kind in BUFFERS:
            if not mpif:
                raise SystemExit("%s: MPICH's f08 routines with a choice buffer reach C themselves" % row.line)
            args.append("mpich_mpif::buffer(%s)" % n)
        else:
            args.append(common_arg(row, style, kind, n))
    return pre, args, post


BODIES = {"openmpi": openmpi_body, "mpich_mpif": mpich_body, "mpich_f08": mpich_body}


def parameters(row):
    ps = []
    for kind, n in row.args:
        if kind == "argv":
            continue
        ps.append(("void* " if kind in BUFFERS else "MPI_Aint* " if kind == "adispls" else "MPI_Fint* ") + n)
    return ", ".join(ps + ["MPI_Fint* ierr"])


def wrapper(row, style, names, prefix):
    pre, args, post = BODIES[style](row, style)
    params = parameters(row)
    out = ["// %s_%s (%s)" % (prefix, row.name, row.line),
           'extern "C" void %s(%s) {' % (names[0], params)]
    out += ["  " + line for line in pre]
    out.append("  const int rc = %s_%s(%s);" % (prefix, row.name, ", ".join(args)))
    out.append("  set_ierr(ierr, rc);")
    out += ["  " + line for line in post]
    out.append("}")
    for alias in names[1:]:
        # Fortran compilers' g77 convention names symbols with two trailing
        # underscores, which C++ reserves: the ABI requires them.
        nolint = "  // NOLINT(bugprone-reserved-identifier)" if "__" in alias else ""
        out.append('extern "C" void %s(%s) __attribute__((alias("%s")));%s' % (alias, params, names[0], nolint))
    return out


def generate(rows, families, flavour, mpi_version, mpix, bindings):
    mine = [f for f in families if f.flavour == flavour and f.binding in bindings]
    code, exported = [], []
    for row in rows:
        for prefix in row.prefixes(mpi_version, mpix):
            by_style = {}
            for f in mine:
                if f.covers(row):
                    by_style.setdefault(STYLES[(f.flavour, f.binding)], []).extend(f.names(row, prefix))
            for style, names in by_style.items():
                code += wrapper(row, style, names, prefix) + [""]
                exported += names
    head = ["// Generated by src/entry/fortran/gen_entries.py from calls.tbl: do not edit.",
            "// %s, MPI %d%s, bindings: %s." % (flavour, mpi_version, " with MPIX_ persistent collectives" if mpix else "",
                                              ", ".join(sorted(bindings)) or "none"),
            '#include "entry/fortran/fortran_support.h"', "",
            "using namespace nbrcoll::fortran;  // NOLINT(google-build-using-namespace)", ""]
    return head + code, sorted(exported)


def check_exports_map(rows, families, path):
    with open(path, encoding="utf-8") as f:
        text = re.sub(r"/\*.*?\*/", "", f.read(), flags=re.S)
    match = re.search(r"global:(.*?)local:", text, flags=re.S)
    if not match:
        sys.exit("%s: no 'global: ... local:' section" % path)
    listed = set(n.strip() for n in match.group(1).split(";") if n.strip())
    wanted = {p + "_" + r.name for r in rows for p in r.all_prefixes()} | {"nbrcoll_version"}
    for f in families:
        for r in rows:
            if f.covers(r):
                for p in r.all_prefixes():
                    wanted.update(f.names(r, p))
    missing, extra = sorted(wanted - listed), sorted(listed - wanted)
    for n in missing:
        print("%s: missing %s (a call of calls.tbl)" % (path, n))
    for n in extra:
        print("%s: lists %s, which no row of calls.tbl makes" % (path, n))
    if missing or extra:
        sys.exit(1)
    print("ok: %s lists the %d names of calls.tbl" % (path, len(wanted)))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--table", required=True)
    p.add_argument("--flavour", choices=["openmpi", "mpich"])
    p.add_argument("--mpi-version", type=int)
    p.add_argument("--mpix-pcollreq", action="store_true")
    p.add_argument("--bindings", default="")
    p.add_argument("--cpp")
    p.add_argument("--names")
    p.add_argument("--check-exports-map")
    a = p.parse_args()
    rows, families = parse(a.table)
    if a.check_exports_map:
        check_exports_map(rows, families, a.check_exports_map)
        return
    if not (a.flavour and a.mpi_version and a.cpp and a.names):
        p.error("--flavour, --mpi-version, --cpp and --names are required to generate")
    bindings = set(b for b in a.bindings.split(",") if b)
    code, names = generate(rows, families, a.flavour, a.mpi_version, a.mpix_pcollreq, bindings)
    with open(a.cpp, "w", encoding="utf-8") as f:
        f.write("\n".join(code) + "\n")
    with open(a.names, "w", encoding="utf-8") as f:
        f.write("".join(n + "\n" for n in names))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Rewrites the library search path (DT_RUNPATH or DT_RPATH) of ELF files in
place, for scripts/gpu-kit.sh: the kit's programs and libraries were linked
with paths of this machine (/usr/lib/x86_64-linux-gnu/openmpi/lib, the CUDA
toolkit, and an empty entry, which means the current folder), and in the kit
they must look only beside themselves.

    elf_runpath.py NEW FILE...

NEW ($ORIGIN/../lib, say) may not be longer than the path it replaces: the
string is overwritten in the dynamic string table and padded with NUL bytes.
A file without such a path is left alone. x86-64 (ELF64, little-endian) only.
Exit status 1 when a file cannot be rewritten (the reason on stderr).
"""
import struct
import sys

DT_NULL, DT_NEEDED, DT_STRTAB, DT_SONAME, DT_RPATH, DT_RUNPATH = 0, 1, 5, 14, 15, 29
PT_LOAD, PT_DYNAMIC = 1, 2


def file_offset(loads, address):
    for vaddr, offset, filesz in loads:
        if vaddr <= address < vaddr + filesz:
            return offset + address - vaddr
    raise ValueError("address 0x%x is in no loaded segment" % address)


def rewrite(path, new):
    with open(path, "r+b") as f:
        data = bytearray(f.read())
        if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
            raise ValueError("not a 64-bit little-endian ELF file")
        phoff, = struct.unpack_from("<Q", data, 0x20)
        phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
        loads, dynamic = [], None
        for i in range(phnum):
            p_type, _, p_offset, p_vaddr, _, p_filesz = struct.unpack_from("<IIQQQQ", data, phoff + i * phentsize)
            if p_type == PT_LOAD:
                loads.append((p_vaddr, p_offset, p_filesz))
            elif p_type == PT_DYNAMIC:
                dynamic = (p_offset, p_filesz)
        if dynamic is None:
            return False
        entries = []
        for at in range(dynamic[0], dynamic[0] + dynamic[1], 16):
            tag, value = struct.unpack_from("<qQ", data, at)
            if tag == DT_NULL:
                break
            entries.append((tag, value))
        strtab = file_offset(loads, next(v for t, v in entries if t == DT_STRTAB))
        paths = [v for t, v in entries if t in (DT_RPATH, DT_RUNPATH)]
        if not paths:
            return False
        for start in paths:
            end = data.index(b"\0", strtab + start) - strtab
            old = bytes(data[strtab + start:strtab + end])
            # Another name that shares these bytes (the linker merges string tails) would change too.
            for tag, value in entries:
                if tag in (DT_NEEDED, DT_SONAME) and start <= value <= end:
                    raise ValueError("its search path shares bytes with another name")
            encoded = new.encode()
            if len(encoded) > len(old):
                raise ValueError("'%s' is longer than the path it replaces, '%s'" % (new, old.decode()))
            data[strtab + start:strtab + end] = encoded + b"\0" * (len(old) - len(encoded))
        f.seek(0)
        f.write(data)
        return True


def main():
    if len(sys.argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    new, status = sys.argv[1], 0
    for path in sys.argv[2:]:
        try:
            rewrite(path, new)
        except (OSError, ValueError, StopIteration) as e:
            sys.stderr.write("elf_runpath.py: %s: %s\n" % (path, e or "no string table"))
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())

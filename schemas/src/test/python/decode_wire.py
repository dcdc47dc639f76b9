#!/usr/bin/python3
"""Decodes Confluent wire-format Avro records with Apache Avro's Python library (Debian python3-avro),
a decoder not written by this project.

usage: decode_wire.py REGISTRY_URL FILE
FILE holds one record per line, hex-encoded. For each record: check magic byte 0, read the 4-byte
big-endian schema id, fetch the writer schema from the registry over HTTP (GET /schemas/ids/{id}),
decode the Avro body and print it as one JSON line. Exits 1 on any malformed record.
"""
import io
import json
import struct
import sys
import urllib.request

import avro.io
import avro.schema


def main():
    registry, path = sys.argv[1], sys.argv[2]
    schemas = {}
    with open(path) as f:
        for line in f:
            raw = bytes.fromhex(line.strip())
            if len(raw) < 5 or raw[0] != 0:
                print("bad header", file=sys.stderr)
                return 1
            schema_id = struct.unpack(">I", raw[1:5])[0]
            if schema_id not in schemas:
                req = urllib.request.Request(registry + "/schemas/ids/%d" % schema_id,
                                             headers={"Accept": "application/vnd.schemaregistry.v1+json"})
                with urllib.request.urlopen(req) as resp:
                    schemas[schema_id] = avro.schema.parse(json.load(resp)["schema"])
            reader = avro.io.DatumReader(schemas[schema_id])
            decoder = avro.io.BinaryDecoder(io.BytesIO(raw[5:]))
            record = reader.read(decoder)
            record["_schema_id"] = schema_id
            print(json.dumps(record, default=str, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())

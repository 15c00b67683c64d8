/**
 * `google.rpc.Status`, `ErrorInfo` and `RetryInfo` as @bufbuild/protobuf message descriptors, built from their .proto
 * definitions (https://github.com/googleapis/googleapis/blob/master/google/rpc/status.proto and error_details.proto)
 * with the library's own descriptor types, so the tests decode `grpc-status-details-bin` with the library's reflection
 * API, not with the Worker's writer (src/errors/grpc-details.ts). Shared by the workers and node tests: no bindings.
 */
import { create, createFileRegistry, fromBinary, toJson, type DescMessage, type JsonValue } from "@bufbuild/protobuf";
import { base64Decode } from "@bufbuild/protobuf/wire";
import {
  file_google_protobuf_any,
  file_google_protobuf_duration,
  FieldDescriptorProto_Label as Label,
  FieldDescriptorProto_Type as Type,
  FileDescriptorProtoSchema,
} from "@bufbuild/protobuf/wkt";

const field = (name: string, number: number, type: Type, extra: { label?: Label; typeName?: string } = {}) => ({
  name,
  number,
  type,
  label: extra.label ?? Label.OPTIONAL,
  jsonName: name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()),
  ...(extra.typeName === undefined ? {} : { typeName: extra.typeName }),
});

const FILE = create(FileDescriptorProtoSchema, {
  name: "google/rpc/edge-test.proto",
  package: "google.rpc",
  syntax: "proto3",
  dependency: ["google/protobuf/any.proto", "google/protobuf/duration.proto"],
  messageType: [
    {
      name: "Status",
      field: [
        field("code", 1, Type.INT32),
        field("message", 2, Type.STRING),
        field("details", 3, Type.MESSAGE, { label: Label.REPEATED, typeName: ".google.protobuf.Any" }),
      ],
    },
    {
      name: "ErrorInfo",
      field: [
        field("reason", 1, Type.STRING),
        field("domain", 2, Type.STRING),
        field("metadata", 3, Type.MESSAGE, { label: Label.REPEATED, typeName: ".google.rpc.ErrorInfo.MetadataEntry" }),
      ],
      nestedType: [
        {
          name: "MetadataEntry",
          field: [field("key", 1, Type.STRING), field("value", 2, Type.STRING)],
          options: { mapEntry: true },
        },
      ],
    },
    {
      name: "RetryInfo",
      field: [field("retry_delay", 1, Type.MESSAGE, { typeName: ".google.protobuf.Duration" })],
    },
  ],
});

export const GOOGLE_RPC = createFileRegistry(FILE, (name) =>
  name === "google/protobuf/any.proto"
    ? file_google_protobuf_any
    : name === "google/protobuf/duration.proto"
      ? file_google_protobuf_duration
      : undefined,
);

function message(name: string): DescMessage {
  const desc = GOOGLE_RPC.getMessage(`google.rpc.${name}`);
  if (desc === undefined) throw new Error(`google.rpc.${name} missing from the test registry`);
  return desc;
}

export const STATUS = message("Status");
export const ERROR_INFO = message("ErrorInfo");
export const RETRY_INFO = message("RetryInfo");

/**
 * A `grpc-status-details-bin` value decoded by the library: the Status in its canonical JSON form
 * (https://protobuf.dev/programming-guides/json/), each `Any` unpacked with `@type`, a Duration as `"120s"`.
 */
export function decodeStatusDetails(header: string): JsonValue {
  const status = fromBinary(STATUS, base64Decode(header));
  return toJson(STATUS, status, { registry: GOOGLE_RPC });
}

"""The rpc connection over a transport: requests and their pending answers, incoming requests,
hand-sent frames, protocol versions. The message model, framing and errors it uses are in
``core/base``."""

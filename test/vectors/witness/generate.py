#!/usr/bin/env python3
# Independent cosignature/v1 vectors (README.md): written from the C2SP tlog-cosignature
# text alone, with Python's hashlib and the `cryptography` package (OpenSSL's Ed25519),
# sharing no code with the service. Run: python3 generate.py > generated.json
import base64, hashlib, json
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

def vector(name, seed, checkpoint, timestamp):
    key = Ed25519PrivateKey.from_private_bytes(seed)
    pub = key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    key_id = hashlib.sha256(name.encode() + b"\n" + b"\x04" + pub).digest()[:4]
    message = b"cosignature/v1\ntime " + str(timestamp).encode() + b"\n" + checkpoint.encode()
    sig = key.sign(message)
    line = "\u2014 " + name + " " + base64.b64encode(key_id + timestamp.to_bytes(8, "big") + sig).decode() + "\n"
    return {
        "name": name,
        "seed_hex": seed.hex(),
        "vkey": name + "+" + key_id.hex() + "+" + base64.b64encode(b"\x04" + pub).decode(),
        "key_id_hex": key_id.hex(),
        "timestamp": timestamp,
        "checkpoint": checkpoint,
        "signed_message": message.decode(),
        "line": line,
    }

print(json.dumps([
    vector("witness.example.com/w1", hashlib.sha256(b"aics witness vector 1").digest(),
           "example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n", 1679315147),
    vector("localhost/witness", hashlib.sha256(b"aics witness vector 2").digest(),
           "localhost/aics\n7\n" + base64.b64encode(hashlib.sha256(b"root").digest()).decode() + "\nextension line\n", 1800000000),
], indent=2, ensure_ascii=False))

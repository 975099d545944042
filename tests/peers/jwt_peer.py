"""PyJWT (Debian's python3-jwt), an implementation of JSON Web Tokens
independent of sluice's, as a peer for sluice's token code: it mints the
tokens sluice must accept (and an unsigned one it must refuse), and checks
the tokens sluice mints.

    jwt_peer.py mint --alg RS256 --key private.pem [--kid K]
    jwt_peer.py verify --alg RS256 --key public.pem TOKEN

`mint` prints a token granting subscribe "news" and publish "prices.*" to
subject "pyjwt", valid ten minutes; `verify` prints the claims as sorted
JSON, or exits 1 with PyJWT's reason."""
import argparse
import json
import sys
import time

import jwt


def key_of(args):
    if args.secret is not None:
        return args.secret
    with open(args.key, encoding="ascii") as f:
        return f.read()


def mint(args):
    now = int(time.time())
    claims = {"sub": "pyjwt", "iat": now, "exp": now + 600,
              "sluice": {"subscribe": ["news"], "publish": ["prices.*"]}}
    headers = {"kid": args.kid} if args.kid else None
    key = None if args.alg == "none" else key_of(args)
    print(jwt.encode(claims, key, algorithm=args.alg, headers=headers))


def verify(args):
    try:
        claims = jwt.decode(args.token, key_of(args), algorithms=[args.alg], options={"require": ["exp", "iat"]},
                            audience=args.aud, issuer=args.iss)
    except jwt.PyJWTError as error:
        print(f"jwt_peer: refused: {error}", file=sys.stderr)
        sys.exit(1)
    print(json.dumps(claims, sort_keys=True))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("command", choices=["mint", "verify"])
    parser.add_argument("token", nargs="?")
    parser.add_argument("--alg", required=True)
    parser.add_argument("--key")
    parser.add_argument("--secret")
    parser.add_argument("--kid")
    parser.add_argument("--aud")
    parser.add_argument("--iss")
    args = parser.parse_intermixed_args()
    mint(args) if args.command == "mint" else verify(args)


if __name__ == "__main__":
    main()

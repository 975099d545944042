// sluiced with GET /ws-echo added, for the real-client tests that check
// fragmentation and compression both ways (tests/peers/ws_echo.*).
#include "server/cli.hpp"
#include "ws_echo_stream.hpp"

int main(int argc, char** argv) { return sluice::server::run_sluiced(argc, argv, sluice::test::add_echo_endpoint); }

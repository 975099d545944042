#include "server/cli.hpp"

int main(int argc, char** argv) { return sluice::server::run_sluiced(argc, argv); }

// placeholder until the server lands
namespace sluice::server {}

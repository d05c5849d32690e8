// NVRTC declares the runtime's types itself.
#pragma once

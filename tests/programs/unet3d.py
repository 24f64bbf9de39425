"""A 3-D U-Net for volumetric segmentation: the building blocks of pytorch-3dunet and a training loop.

Source: wolny/pytorch-3dunet, pytorch3dunet/unet3d/buildingblocks.py and model.py
(https://github.com/wolny/pytorch-3dunet), after Cicek et al., "3D U-Net" (2016).
Changed: the import; the blocks trimmed to the options used here (conv order 'cbr': Conv3d, BatchNorm3d,
ReLU; max pooling; 'deconv' upsampling by ConvTranspose3d with the encoder's `output_size`, joined by
summation as the library does for it); the config-driven trainer replaced by a loop with the library's
default Adam and BCEWithLogitsLoss on synthetic volumes passed in; sizes small (f_maps=4, 3 levels, 8^3 to
16^3 volumes); the device is the CPU. `train` returns the losses and the final evaluation logits.
"""
from functools import partial

import torch
from torch import nn


def create_conv(in_channels, out_channels, kernel_size, order, padding):
    modules = []
    for i, char in enumerate(order):
        if char == 'r':
            modules.append(('ReLU', nn.ReLU(inplace=True)))
        elif char == 'c':
            bias = not ('g' in order or 'b' in order)
            modules.append(('conv', nn.Conv3d(in_channels, out_channels, kernel_size, padding=padding, bias=bias)))
        elif char == 'b':
            is_before_conv = i < order.index('c')
            if is_before_conv:
                modules.append(('batchnorm', nn.BatchNorm3d(in_channels)))
            else:
                modules.append(('batchnorm', nn.BatchNorm3d(out_channels)))
    return modules


class SingleConv(nn.Sequential):
    def __init__(self, in_channels, out_channels, kernel_size=3, order='cbr', padding=1):
        super(SingleConv, self).__init__()
        for name, module in create_conv(in_channels, out_channels, kernel_size, order, padding=padding):
            self.add_module(name, module)


class DoubleConv(nn.Sequential):
    def __init__(self, in_channels, out_channels, encoder, kernel_size=3, order='cbr', padding=1):
        super(DoubleConv, self).__init__()
        if encoder:
            conv1_in_channels = in_channels
            conv1_out_channels = out_channels // 2
            if conv1_out_channels < in_channels:
                conv1_out_channels = in_channels
            conv2_in_channels, conv2_out_channels = conv1_out_channels, out_channels
        else:
            conv1_in_channels, conv1_out_channels = in_channels, out_channels
            conv2_in_channels, conv2_out_channels = out_channels, out_channels
        self.add_module('SingleConv1', SingleConv(conv1_in_channels, conv1_out_channels, kernel_size, order,
                                                  padding=padding))
        self.add_module('SingleConv2', SingleConv(conv2_in_channels, conv2_out_channels, kernel_size, order,
                                                  padding=padding))


class Encoder(nn.Module):
    def __init__(self, in_channels, out_channels, apply_pooling=True, pool_kernel_size=2):
        super(Encoder, self).__init__()
        self.pooling = nn.MaxPool3d(kernel_size=pool_kernel_size) if apply_pooling else None
        self.basic_module = DoubleConv(in_channels, out_channels, encoder=True)

    def forward(self, x):
        if self.pooling is not None:
            x = self.pooling(x)
        x = self.basic_module(x)
        return x


class TransposeConvUpsampling(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size=3, scale_factor=2):
        super().__init__()
        self.conv_transposed = nn.ConvTranspose3d(in_channels, out_channels, kernel_size=kernel_size,
                                                  stride=scale_factor, padding=1, bias=False)

    def forward(self, encoder_features, x):
        output_size = encoder_features.size()[2:]
        return self.conv_transposed(x, output_size=output_size)


class Decoder(nn.Module):
    def __init__(self, in_channels, out_channels):
        super(Decoder, self).__init__()
        self.upsampling = TransposeConvUpsampling(in_channels=in_channels, out_channels=out_channels)
        self.joining = partial(self._joining, concat=False)
        self.basic_module = DoubleConv(out_channels, out_channels, encoder=False)

    def forward(self, encoder_features, x):
        x = self.upsampling(encoder_features=encoder_features, x=x)
        x = self.joining(encoder_features, x)
        x = self.basic_module(x)
        return x

    @staticmethod
    def _joining(encoder_features, x, concat):
        if concat:
            return torch.cat((encoder_features, x), dim=1)
        else:
            return encoder_features + x


class UNet3D(nn.Module):
    def __init__(self, in_channels, out_channels, f_maps=4, num_levels=3):
        super(UNet3D, self).__init__()
        f_maps = [f_maps * 2 ** k for k in range(num_levels)]
        self.encoders = nn.ModuleList([Encoder(in_channels if i == 0 else f_maps[i - 1], f, apply_pooling=i > 0)
                                       for i, f in enumerate(f_maps)])
        reversed_f_maps = list(reversed(f_maps))
        self.decoders = nn.ModuleList([Decoder(reversed_f_maps[i], reversed_f_maps[i + 1])
                                       for i in range(len(reversed_f_maps) - 1)])
        self.final_conv = nn.Conv3d(f_maps[0], out_channels, 1)
        self.final_activation = nn.Sigmoid()

    def forward(self, x):
        encoders_features = []
        for encoder in self.encoders:
            x = encoder(x)
            encoders_features.insert(0, x)
        encoders_features = encoders_features[1:]
        for decoder, encoder_features in zip(self.decoders, encoders_features):
            x = decoder(encoder_features, x)
        x = self.final_conv(x)
        if not self.training:
            x = self.final_activation(x)
        return x


def train(model, volumes, masks, steps=3, lr=0.0002, weight_decay=0.00001):
    optimizer = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=weight_decay)
    loss_criterion = nn.BCEWithLogitsLoss()
    losses = []
    model.train()
    for step in range(steps):
        output = model(volumes)
        loss = loss_criterion(output, masks)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    model.eval()
    with torch.no_grad():
        prediction = model(volumes)
    return losses, prediction
